// The pre-rendered sign-in form's own script (a few KiB, built by scripts/prerender.mjs into login.html,
// inline after the form): it makes the copy of the form usable before React and MUI have arrived and run, which on a
// slow phone is seconds later (bench/login.mjs). It checks the fields with the same rule as the app, posts
// to /api/login exactly as the app does, and shows the spec's texts the way MUI does, by giving the copy
// the classes prerender.tsx rendered for each state. Whatever comes next (the app after signing in, the
// second step, the passkey prompt) is the app's: it takes over the form, what was typed and the answer
// of a sign-in still on its way (takeShellValues).

import { validateLogin } from "../../../../shared/validation.ts";
import { MSG, PUSH_MSG } from "../../../../shared/messages.ts";
import {
  messageOf,
  noAnswerFromPanel,
  PANEL_HEADER,
  parseBodyText,
  type ReadAnswer,
} from "../../api/answer.ts";
import { SHELL_ID, type ShellFieldState, type ShellHandover } from "./shellStates.ts";

type Field = "username" | "password";
const FIELDS: Field[] = ["username", "password"];
/** As long as the app's flash messages (state/flash.ts). */
const FLASH_MS = 4000;

const shell = document.getElementById(SHELL_ID);
const states = document.getElementById(SHELL_ID + "-states");
if (shell && states instanceof HTMLTemplateElement) start(shell, states.content);

function start(shell: HTMLElement, states: DocumentFragment): void {
  const handover: ShellHandover = { pending: null, flash: null, errors: {}, passkey: false };
  window.panelLoginShell = handover;
  const inputs = {} as Record<Field, HTMLInputElement>;
  for (const f of FIELDS) {
    const input = shell.querySelector<HTMLInputElement>(`input[name="${f}"]`);
    if (!input) return;
    inputs[f] = input;
  }
  const [signIn, passkey] = [...shell.querySelectorAll<HTMLButtonElement>("button")];
  const region = shell.querySelector<HTMLElement>('[data-testid="flash-region"]');
  if (!signIn || !region) return;
  const idleButton = signIn.className;
  let busy = false;

  /** Gives a field the classes (and the helper text) MUI gives it in its state. */
  function paint(f: Field): void {
    const input = inputs[f];
    const base = document.activeElement === input ? "focused" : input.value !== "" ? "filled" : "idle";
    const state = (handover.errors[f] ? `${base}-error` : base) as ShellFieldState;
    const model = states.querySelector(`[data-field="${f}"][data-state="${state}"] .MuiFormControl-root`);
    const live = input.closest(".MuiFormControl-root");
    if (!model || !live) return;
    const helperOf = (root: Element) => root.querySelector(".MuiFormHelperText-root");
    const parts = (root: Element) =>
      [...root.querySelectorAll("*")].filter((e) => !e.closest(".MuiFormHelperText-root"));
    live.className = model.className;
    const from = parts(model);
    parts(live).forEach((el, i) => {
      const m = from[i];
      if (!m || m.tagName !== el.tagName) return;
      el.className = m.className;
      for (const attr of ["data-shrink", "aria-invalid"]) {
        const v = m.getAttribute(attr);
        if (v === null) el.removeAttribute(attr);
        else el.setAttribute(attr, v);
      }
    });
    helperOf(live)?.remove();
    const helper = helperOf(model);
    if (helper) {
      const copy = helper.cloneNode(true) as HTMLElement;
      copy.id = `${input.id}-helper-text`;
      live.append(copy);
      input.setAttribute("aria-describedby", copy.id);
    } else {
      input.removeAttribute("aria-describedby");
    }
  }

  function setBusy(on: boolean): void {
    busy = on;
    const model = states.querySelector('[data-state="busy"] button');
    signIn.className = on && model ? model.className : idleButton;
    signIn.disabled = on;
  }

  /** A red flash like the app's (components/Flash.tsx), gone after 4 s or when clicked. */
  function flash(message: string): void {
    const model = states.querySelector('[data-state="flash"] [data-testid="flash"]');
    if (!model) return;
    region!.replaceChildren();
    const alert = model.cloneNode(true) as HTMLElement;
    const text = alert.querySelector(".MuiAlert-message");
    if (text) text.textContent = message;
    handover.flash = message;
    const dismiss = () => {
      alert.remove();
      if (region!.childElementCount === 0) region!.style.pointerEvents = "";
      if (handover.flash === message) handover.flash = null;
    };
    alert.addEventListener("click", dismiss);
    setTimeout(dismiss, FLASH_MS);
    region!.style.pointerEvents = "auto";
    region!.append(alert);
  }

  function submit(): void {
    if (busy) return;
    const values = { username: inputs.username.value, password: inputs.password.value };
    handover.errors = validateLogin(values);
    FIELDS.forEach(paint);
    if (Object.keys(handover.errors).length > 0) return;
    setBusy(true);
    const pending = fetch("/api/login", {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ username: values.username.trim(), password: values.password }),
    }).then(
      async (res): Promise<ReadAnswer> => ({
        status: res.status,
        body: parseBodyText(await res.text()),
        panelHeader: res.headers.get(PANEL_HEADER),
      }),
      (): ReadAnswer => ({ status: 0, body: null, panelHeader: null }),
    );
    handover.pending = pending;
    void pending.then((answer) => {
      // The app took over meanwhile: it shows the answer.
      if (!shell.isConnected) return;
      // Signed in, or the second step: the app, when it runs, goes on from this answer.
      if (answer.status >= 200 && answer.status < 300) return;
      handover.pending = null;
      setBusy(false);
      flash(
        noAnswerFromPanel(answer)
          ? PUSH_MSG.needsConnection
          : answer.status === 401
          ? MSG.loginFailed
          : messageOf(answer.body, answer.status),
      );
    });
  }

  for (const f of FIELDS) {
    const input = inputs[f];
    for (const type of ["focus", "blur", "input", "animationstart"]) {
      input.addEventListener(type, () => paint(f));
    }
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing) {
        e.preventDefault();
        submit();
      }
    });
    paint(f);
  }
  signIn.addEventListener("click", submit);
  // The passkey prompt is the app's: it opens it when it takes over.
  passkey?.addEventListener("click", () => {
    handover.passkey = true;
  });
  shell.dataset.ready = "true";
}
