import { type FormEvent, useEffect, useState } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import { LoginCard, takeShellValues } from "./LoginCard.tsx";
import { preloadSignedIn } from "../../preload.ts";
import { useSnapshot } from "valtio";
import { usersApi } from "../../api/users.ts";
import { ApiError, settle } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { session, signedIn, takeReturn } from "../../state/session.ts";
import { MSG } from "../../../../shared/messages.ts";
import { validateLogin } from "../../../../shared/validation.ts";
import { useForm } from "../../components/useForm.ts";
import { isSecondFactor } from "../../api/access.ts";
import type { SecondFactorRequired } from "../../../../shared/access.ts";
import { PasskeyButton, SecondStep, signInWithPasskey } from "./SecondStep.tsx";
import type { LoginAnswer, User } from "../../../../shared/api.ts";
import { applyStatus } from "../../state/server.ts";
import { FIRST_SERVER } from "../../../../shared/servers.ts";

export default function Login() {
  // What was typed into (and sent from) the pre-rendered form (login.html) before the app took over.
  const [shell] = useState(takeShellValues);
  const form = useForm(
    { username: shell.username, password: shell.password },
    validateLogin,
    shell.handover?.errors,
  );
  const [busy, setBusy] = useState(false);
  const [second, setSecond] = useState<SecondFactorRequired["methods"] | null>(null);
  const navigate = useNavigate();
  const location = useLocation();
  const { state } = useSnapshot(session);
  const from = (location.state as { from?: string } | null)?.from;

  // While the visitor types: fetch what signing in will show, after the form itself is up.
  useEffect(() => {
    const t = setTimeout(preloadSignedIn, 0);
    return () => clearTimeout(t);
  }, []);

  // What the pre-rendered form started: its sign-in's answer, its flash, the passkey prompt.
  useEffect(() => {
    const handover = shell.handover;
    if (!handover) return;
    if (handover.flash) showFlash(handover.flash, "error");
    if (handover.pending) {
      void finish(handover.pending.then((a) => settle<LoginAnswer>(a, { expect401: true })));
    } else if (handover.passkey) void signInWithPasskey(land);
    // Once: what the copy handed over is taken with the first render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Already signed in (a session existed on load): straight to where the visitor was going.
  useEffect(() => {
    if (state === "signedIn") navigate(takeReturn(from), { replace: true });
  }, [state, from, navigate]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!form.check()) return;
    await finish(usersApi.login({ username: form.values.username.trim(), password: form.values.password }));
  }

  // Signed in by any step: straight on, in the same update, so React renders the signed-in page once
  // (as a plain update, App.tsx PanelRouter), without first rendering this form again for the effect
  // above to navigate (bench/login.mjs).
  function land(user: User) {
    signedIn(user);
    navigate(takeReturn(from), { replace: true });
  }

  async function finish(login: Promise<LoginAnswer>) {
    setBusy(true);
    try {
      const answer = await login;
      if (isSecondFactor(answer)) setSecond(answer.methods);
      else {
        // The (first) server's status comes with the answer: Controls shows without one more round trip.
        const { server_status, ...user } = answer;
        if (server_status) applyStatus(server_status, FIRST_SERVER);
        land(user);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) showFlash(MSG.loginFailed, "error");
    } finally {
      setBusy(false);
    }
  }

  return (
    <LoginCard
      onSubmit={submit}
      busy={busy}
      focus={shell.focus}
      username={form.field("username")}
      password={form.field("password")}
      extra={<PasskeyButton label="Use a passkey" onSignedIn={land} />}
      replaceForm={second
        ? <SecondStep methods={second} onCancel={() => setSecond(null)} onSignedIn={land} />
        : undefined}
    />
  );
}
