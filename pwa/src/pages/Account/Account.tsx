// The signed-in user's own account: password, second factors, sessions and API tokens. Every role has it.

import { useCallback, useEffect, useState } from "react";
import { Box, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import { Page } from "../../components/Page.tsx";
import { ChangePassword } from "../Users/Users.tsx";
import { accessApi } from "../../api/access.ts";
import { checkSession, session } from "../../state/session.ts";
import type { Role } from "../../../../shared/api.ts";
import { ROLE_HELP, type TwoFactorStatus } from "../../../../shared/access.ts";
import { TwoFactor } from "./TwoFactor.tsx";
import { Passkeys } from "./Passkeys.tsx";
import { Sessions } from "./Sessions.tsx";
import { Tokens } from "./Tokens.tsx";

export default function Account() {
  const { user } = useSnapshot(session);
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const load = useCallback(() => {
    accessApi.twoFactor().then((s) => {
      setStatus(s);
      // The first factor set up lifts the "set one up first" hold: read the session again.
      if (session.user?.must_enrol && (s.totp || s.passkeys > 0)) void checkSession();
    }, () => {});
  }, []);
  useEffect(load, [load]);
  const role = (user?.role as Role | undefined) ?? "viewer";
  return (
    <Page title="Account">
      <Typography color="text.secondary">
        Signed in as <b>{user?.username}</b>, role <b>{role}</b>: {ROLE_HELP[role]}
      </Typography>
      <Box
        sx={{
          display: "grid",
          gap: 2.5,
          gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" },
          alignItems: "start",
        }}
      >
        <TwoFactor status={status} onChanged={load} />
        <Passkeys onChanged={load} />
        <Sessions />
        <ChangePassword />
      </Box>
      <Tokens />
    </Page>
  );
}
