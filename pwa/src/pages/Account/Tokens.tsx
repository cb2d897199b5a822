// API tokens: made with a name, a role up to the user's and an expiry; the secret is shown once.

import { type FormEvent, useCallback, useEffect, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Chip,
  FormControlLabel,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Typography,
} from "@mui/material";
import { Panel } from "../../components/Page.tsx";
import { accessApi, type ServerName, serverNames } from "../../api/access.ts";
import { showFlash } from "../../state/flash.ts";
import { useSnapshot } from "valtio";
import { session } from "../../state/session.ts";
import { type Role, roleAtLeast, ROLES } from "../../../../shared/api.ts";
import { ACCESS_MSG, type ApiToken, TOKEN_MAX_DAYS } from "../../../../shared/access.ts";
import { when } from "./Sessions.tsx";
import { useCan } from "../../state/access.ts";

export function Tokens() {
  const { user } = useSnapshot(session);
  const myRole = (user?.role as Role | undefined) ?? "viewer";
  const isAdmin = useCan("admin");
  // Admins may list and revoke everyone's tokens (a script of someone who left, a leaked token).
  const [all, setAll] = useState(false);
  const [list, setList] = useState<ApiToken[]>([]);
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [days, setDays] = useState("90");
  const [error, setError] = useState("");
  const [shown, setShown] = useState<string | null>(null);
  // The servers a token may be limited to (those the user may see); none chosen: every server.
  const [servers, setServers] = useState<ServerName[]>([]);
  const [limit, setLimit] = useState<number[]>([]);
  const load = useCallback(() => {
    accessApi.tokens(all).then(setList, () => {});
  }, [all]);
  useEffect(load, [load]);
  useEffect(() => {
    serverNames().then(setServers, () => {});
  }, []);
  const serverName = (id: number) => servers.find((s) => s.id === id)?.name ?? `Server ${id}`;

  async function create(e: FormEvent) {
    e.preventDefault();
    if (name.trim() === "") return setError(ACCESS_MSG.tokenNameRequired);
    const n = Number(days);
    if (!Number.isInteger(n) || n < 1 || n > TOKEN_MAX_DAYS) {
      return setError(ACCESS_MSG.tokenExpiryRange(TOKEN_MAX_DAYS));
    }
    setError("");
    try {
      const made = await accessApi.createToken({
        name: name.trim(),
        role,
        expires_days: n,
        ...(limit.length > 0 ? { servers: limit } : {}),
      });
      setShown(made.token);
      setName("");
      load();
    } catch {
      // flashed by the client
    }
  }

  async function revoke(t: ApiToken) {
    try {
      showFlash(await accessApi.revokeToken(t.id), "success");
    } catch {
      // flashed
    }
    load();
  }

  return (
    <Panel
      title="API Tokens"
      action={isAdmin
        ? (
          <FormControlLabel
            control={
              <Switch
                checked={all}
                onChange={(e) => setAll(e.target.checked)}
              />
            }
            label="Everyone's"
            sx={{ mr: 1 }}
          />
        )
        : undefined}
    >
      <Stack spacing={2}>
        <Typography variant="body2" color="text.secondary">
          For scripts: send{" "}
          <code>Authorization: Bearer TOKEN</code>. A token can do what its role allows, never more than you.
          Changing your password revokes your tokens.
        </Typography>
        {shown && (
          <Alert severity="warning" onClose={() => setShown(null)}>
            Copy this token now: it is not shown again.
            <Box
              component="code"
              sx={{ display: "block", mt: 1, wordBreak: "break-all", userSelect: "all" }}
              aria-label="New token"
            >
              {shown}
            </Box>
            <Button
              size="small"
              sx={{ mt: 1 }}
              onClick={() =>
                void navigator.clipboard?.writeText(shown).then(() => showFlash("Copied", "success"))}
            >
              Copy
            </Button>
          </Alert>
        )}
        <Box
          component="form"
          aria-label="Create Token"
          onSubmit={create}
          noValidate
          sx={{
            display: "grid",
            gap: 2,
            gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", md: "2fr 1fr 1fr 1.4fr auto" },
            alignItems: "start",
          }}
        >
          <TextField
            label="Token name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={error !== ""}
            helperText={error || " "}
          />
          <TextField select label="Token role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.filter((r) => roleAtLeast(myRole, r)).map((r) => <MenuItem key={r} value={r}>{r}
            </MenuItem>)}
          </TextField>
          <TextField
            label="Expires in days"
            type="number"
            value={days}
            onChange={(e) => setDays(e.target.value)}
            slotProps={{ htmlInput: { min: 1, max: TOKEN_MAX_DAYS } }}
          />
          <TextField
            select
            label="Limit to servers"
            value={limit}
            onChange={(e) => {
              const v = e.target.value as unknown as number[] | string;
              setLimit(typeof v === "string" ? [] : v);
            }}
            slotProps={{
              select: {
                multiple: true,
                displayEmpty: true,
                renderValue: (v) => {
                  const ids = v as number[];
                  return ids.length === 0 ? "All servers" : ids.map(serverName).join(", ");
                },
              },
              inputLabel: { shrink: true },
            }}
          >
            {servers.map((s) => <MenuItem key={s.id} value={s.id}>{s.name}</MenuItem>)}
          </TextField>
          <Button type="submit" sx={{ minHeight: 56 }}>Create Token</Button>
        </Box>
        <Stack component="ul" spacing={1} sx={{ listStyle: "none", p: 0, m: 0 }} aria-label="Tokens">
          {list.map((t) => (
            <Box
              component="li"
              key={t.id}
              sx={{
                display: "flex",
                alignItems: "center",
                gap: 1,
                borderBottom: 1,
                borderColor: "divider",
                pb: 1,
              }}
            >
              <Box sx={{ flexGrow: 1, minWidth: 0 }}>
                <Typography component="div" sx={{ fontWeight: 600 }}>
                  {t.name}
                  {t.username ? ` · ${t.username}` : ""} <Chip size="small" label={t.role} sx={{ ml: 0.5 }} />
                  {t.state !== "active" && (
                    <Chip size="small" color="warning" label={t.state} sx={{ ml: 0.5 }} />
                  )}
                </Typography>
                {t.servers && (
                  <Typography variant="body2" color="text.secondary">
                    {t.servers.length === 0 ? "no server" : `only ${t.servers.map(serverName).join(", ")}`}
                  </Typography>
                )}
                <Typography variant="body2" color="text.secondary">
                  expires {when(t.expires_at)} · {t.last_used_at
                    ? `last used ${when(t.last_used_at)} from ${t.last_used_address}`
                    : "never used"}
                </Typography>
              </Box>
              {t.state === "active" && (
                <Button
                  variant="outlined"
                  color="error"
                  sx={{ flexShrink: 0 }}
                  onClick={() => void revoke(t)}
                  aria-label={`Revoke token ${t.name}${t.username ? ` of ${t.username}` : ""}`}
                >
                  Revoke
                </Button>
              )}
            </Box>
          ))}
        </Stack>
      </Stack>
    </Panel>
  );
}
