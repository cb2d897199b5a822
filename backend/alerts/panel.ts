// Alerts about the panel itself: a sign-in from a device or address the user never signed in from, a
// panel user added or removed, little space left where saves and backups are kept, and an HTTPS
// certificate the panel could not get or renew.

import { existsSync } from "node:fs";
import { diskSpace } from "../lib/fsutil.ts";
import { dirname } from "node:path";
import type { EventBus } from "../lib/events.ts";
import type { CertificateFailure } from "../https/manager.ts";
import { daysLeft } from "../https/lifetime.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/db.ts";
import { deviceName } from "../push/service.ts";

export interface PanelAlertsDeps {
  bus: EventBus;
  log: Logger;
  db: Db;
  now: () => number;
  /** Folders whose volume is watched (saves, the data dir with backups and packs). */
  diskPaths: string[];
  /** Below this share of free space (percent) the disk counts as low; 0 turns the check off. */
  diskLowPercent: number;
  diskCheckMs: number;
}

/** Free space of the volume holding `path`: bytes available to us and the volume's size. */
export function freeSpace(path: string): Promise<{ free: number; size: number }> {
  // A folder not made yet (no saves so far) lives on its parent's volume.
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return diskSpace(at);
}

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

export class PanelAlerts {
  #unsubscribe: (() => void)[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #first: ReturnType<typeof setTimeout> | undefined;
  /** Paths told about as low; told again only after they recovered. */
  #low = new Set<string>();

  constructor(private readonly deps: PanelAlertsDeps) {
    this.#unsubscribe.push(deps.bus.on("auth.signed-in", (e) => this.#onSignIn(e)));
    this.#unsubscribe.push(deps.bus.on("users.changed", (e) => {
      deps.bus.emit("alert", {
        kind: "user-changed",
        title: e.action === "added" ? "Panel user added" : "Panel user removed",
        body: e.action === "added"
          ? `${e.username} can now sign in to the panel.`
          : `${e.username} can no longer sign in.`,
        details: { User: e.username },
        url: "/users",
        key: `${e.action} ${e.username}`,
      });
    }));
    this.#unsubscribe.push(deps.bus.on("https.failed", (e) => this.#onCertificateFailed(e)));
    if (deps.diskLowPercent > 0) {
      this.#timer = setInterval(() => this.checkDisk(), deps.diskCheckMs);
      // The first look a little after start-up, not during it.
      this.#first = setTimeout(() => this.checkDisk(), 10_000);
    }
  }

  /** The panel could not get or renew its certificate: the reason, and how long the one it serves lasts. */
  #onCertificateFailed(e: CertificateFailure): void {
    const now = this.deps.now();
    const days = e.notAfter === null ? null : daysLeft(e.notAfter, now);
    const left = e.notAfter === null
      ? "The panel has no certificate yet, so browsers cannot open it over HTTPS."
      : e.notAfter <= now
      ? "The certificate it serves has expired: browsers refuse it."
      : `The certificate it serves ends in ${days === 1 ? "1 day" : `${days} days`} (${
        new Date(e.notAfter).toISOString().slice(0, 16).replace("T", " ")
      } UTC).`;
    const details: Record<string, string> = { Names: e.names.join(", "), Reason: e.reason };
    if (days !== null) details["Days left"] = String(Math.max(0, days));
    if (e.nextTry !== null) {
      details["Next try"] = new Date(e.nextTry).toISOString().slice(0, 16).replace("T", " ") + " UTC";
    }
    this.deps.bus.emit("alert", {
      kind: "certificate",
      title: e.notAfter === null ? "No HTTPS certificate" : "HTTPS certificate renewal failed",
      body: `${/[.!?]$/.test(e.reason) ? e.reason : `${e.reason}.`} ${left}`,
      details,
      url: "/settings/https",
      key: "certificate",
    });
  }

  #onSignIn(e: { userId: number; username: string; address: string; userAgent: string }): void {
    const device = deviceName(e.userAgent);
    const news: string[] = [];
    const insert = this.deps.db.prepare(
      "INSERT OR IGNORE INTO known_sign_ins (user_id, kind, value, first_at) VALUES (?, ?, ?, ?)",
    );
    const now = this.deps.now();
    if (Number(insert.run(e.userId, "address", e.address, now).changes) > 0) {
      news.push(`address ${e.address}`);
    }
    if (Number(insert.run(e.userId, "device", device, now).changes) > 0) news.push(`device ${device}`);
    if (news.length === 0) return;
    this.deps.bus.emit("alert", {
      kind: "new-sign-in",
      title: "New sign-in",
      body: `${e.username} signed in from a new ${news.join(" and a new ")}.`,
      details: { User: e.username, Address: e.address, Device: device },
      url: "/users",
      key: `${e.username} ${e.address} ${device}`,
    });
  }

  /** Looks at each watched volume once; alerts when one is low, once until it recovers. */
  async checkDisk(): Promise<void> {
    for (const path of this.deps.diskPaths) {
      let space: { free: number; size: number };
      try {
        space = await freeSpace(path);
      } catch (e) {
        this.deps.log.warn("Could not read the free disk space", { path, error: String(e) });
        continue;
      }
      if (space.size === 0) continue;
      const percent = (space.free / space.size) * 100;
      if (percent < this.deps.diskLowPercent) {
        if (this.#low.has(path)) continue;
        this.#low.add(path);
        this.deps.bus.emit("alert", {
          kind: "disk-low",
          title: "Low disk space",
          body: `Only ${gib(space.free)} (${
            percent.toFixed(1)
          } %) free where ${path} is. Saves and backups may fail.`,
          details: { Folder: path, Free: gib(space.free), Size: gib(space.size) },
          key: path,
        });
      } else if (percent >= this.deps.diskLowPercent + 1) {
        this.#low.delete(path);
      }
    }
  }

  close(): void {
    for (const u of this.#unsubscribe) u();
    clearInterval(this.#timer);
    clearTimeout(this.#first);
  }
}
