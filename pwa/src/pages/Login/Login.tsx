import { useEffect, useState, type FormEvent } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import { LoginCard, takeShellValues } from "./LoginCard.tsx";
import { preloadSignedIn } from "../../preload.ts";
import { useSnapshot } from "valtio";
import { usersApi } from "../../api/users.ts";
import { ApiError } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { session, signedIn, takeReturn } from "../../state/session.ts";
import { MSG } from "../../../../shared/messages.ts";
import { validateLogin } from "../../../../shared/validation.ts";
import { useForm } from "../../components/useForm.ts";
import { isSecondFactor } from "../../api/access.ts";
import type { SecondFactorRequired } from "../../../../shared/access.ts";
import { PasskeyButton, SecondStep } from "./SecondStep.tsx";

export default function Login() {
  // What was typed into the pre-rendered form (login.html) before the app took over.
  const [initial] = useState(takeShellValues);
  const form = useForm(initial, validateLogin);
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

  // Already signed in (a session existed on load): straight to where the visitor was going.
  useEffect(() => {
    if (state === "signedIn") navigate(takeReturn(from), { replace: true });
  }, [state, from, navigate]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!form.check()) return;
    setBusy(true);
    try {
      const answer = await usersApi.login({ username: form.values.username.trim(), password: form.values.password });
      if (isSecondFactor(answer)) setSecond(answer.methods);
      else signedIn(answer);
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
      username={form.field("username")}
      password={form.field("password")}
      extra={<PasskeyButton label="Use a passkey" />}
      replaceForm={second ? <SecondStep methods={second} onCancel={() => setSecond(null)} /> : undefined}
    />
  );
}
