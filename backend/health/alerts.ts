// Alerts from the health samples (issue 51), raised on the bus like every other alert (alerts/alert.ts), so
// the dispatcher merges them and sends them to the push devices and channels subscribed:
// - low UPS: a settled estimate below --alert-ups-below for --alert-ups-samples samples in a row; then,
//   once it is back at or above the threshold, a "recovered" message to the same subscribers; another
//   low-UPS alert waits --alert-ups-cooldown-minutes after the recovery. A paused game is not slow.
// - hung: the game's process runs and its console has not answered for --alert-hung-seconds; "answering
//   again" when it does.
// - memory: the game's resident memory above --alert-memory-mb; told again only after it fell below 95%.

import type { HealthNow } from "../../shared/contract/health.ts";
import type { EventBus } from "../lib/events.ts";
import type { HealthServer } from "./sampler.ts";

export interface HealthAlertRules {
  upsBelow: number;
  upsSamples: number;
  upsCooldownMs: number;
  hungMs: number;
  memoryBytes: number;
}

interface ServerAlertState {
  lowCount: number;
  lowAlerted: boolean;
  /** No new low-UPS alert before this (the cooldown after a recovery). */
  lowQuietUntil: number;
  hungAlerted: boolean;
  memoryAlerted: boolean;
}

const mib = (b: number) => `${Math.round(b / 1024 ** 2)} MiB`;

export class HealthAlerts {
  #state = new Map<string, ServerAlertState>();

  constructor(private readonly bus: EventBus, private readonly rules: HealthAlertRules) {}

  observe(server: HealthServer, h: HealthNow): void {
    let s = this.#state.get(server.id);
    if (!s) {
      this.#state.set(
        server.id,
        s = { lowCount: 0, lowAlerted: false, lowQuietUntil: 0, hungAlerted: false, memoryAlerted: false },
      );
    }
    const at = Date.parse(h.at);
    const { rules } = this;
    // A stopped game's own alerts (stopped, crashed) say what matters; these start afresh with the next run.
    if (h.state === "stopped") {
      s.lowCount = 0;
      s.lowAlerted = false;
      s.hungAlerted = false;
      s.memoryAlerted = false;
      return;
    }

    if (rules.upsBelow > 0 && h.ups_state === "running" && h.ups !== null) {
      if (h.ups < rules.upsBelow) {
        s.lowCount++;
        if (!s.lowAlerted && s.lowCount >= rules.upsSamples && at >= s.lowQuietUntil) {
          s.lowAlerted = true;
          this.#emit(
            "low-ups",
            "Low UPS",
            `The game runs at ${h.ups} UPS, below ${rules.upsBelow}, for ${s.lowCount} samples in a row.`,
            {
              UPS: String(h.ups),
              Threshold: String(rules.upsBelow),
            },
            "low",
          );
        }
      } else {
        s.lowCount = 0;
        if (s.lowAlerted) {
          s.lowAlerted = false;
          s.lowQuietUntil = at + rules.upsCooldownMs;
          this.#emit(
            "low-ups",
            "UPS recovered",
            `The game runs at ${h.ups} UPS again (threshold ${rules.upsBelow}).`,
            { UPS: String(h.ups) },
            "recovered",
          );
        }
      }
    } else if (h.ups_state === "paused") {
      // A paused game is not slow: the count starts again when it runs.
      s.lowCount = 0;
    }

    const silentFor = h.no_answer_since ? at - Date.parse(h.no_answer_since) : 0;
    if (rules.hungMs > 0 && h.ups_state === "no-answer" && silentFor >= rules.hungMs && !s.hungAlerted) {
      s.hungAlerted = true;
      this.#emit(
        "hung",
        "Game not answering",
        `The game's process runs but its console has not answered for ${
          Math.round(silentFor / 1000)
        } s: it may be hung.`,
        {},
        "hung",
      );
    } else if (s.hungAlerted && h.ups_state !== "no-answer") {
      s.hungAlerted = false;
      this.#emit("hung", "Game answering again", "The game's console answers again.", {}, "answering");
    }

    if (rules.memoryBytes > 0 && h.memory_bytes !== null) {
      if (h.memory_bytes > rules.memoryBytes && !s.memoryAlerted) {
        s.memoryAlerted = true;
        this.#emit(
          "memory-high",
          "High memory",
          `The game uses ${mib(h.memory_bytes)}, above ${mib(rules.memoryBytes)}.`,
          {
            Memory: mib(h.memory_bytes),
            Threshold: mib(rules.memoryBytes),
          },
          "high",
        );
      } else if (h.memory_bytes < rules.memoryBytes * 0.95) {
        s.memoryAlerted = false;
      }
    }
  }

  #emit(
    kind: "low-ups" | "hung" | "memory-high",
    title: string,
    body: string,
    details: Record<string, string>,
    key: string,
  ): void {
    // The recovered message is its own key: it must not be merged into the alert it answers.
    this.bus.emit("alert", { kind, title, body, details, key, url: "/" });
  }
}
