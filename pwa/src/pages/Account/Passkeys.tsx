// Passkeys: add one (the browser's prompt), name it, remove it. A passkey signs in without a password,
// or is the second step after it.

import { type FormEvent, useCallback, useEffect, useState } from "react";
import { Box, Button, IconButton, Stack, TextField, Typography } from "@mui/material";
import EditIcon from "@mui/icons-material/Edit";
import { startRegistration } from "@simplewebauthn/browser";
import { Panel } from "../../components/Page.tsx";
import { DeleteButton } from "../../components/DeleteButton.tsx";
import { accessApi } from "../../api/access.ts";
import { ApiError } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { secondFactorAdded } from "../../state/session.ts";
import type { Passkey } from "../../../../shared/access.ts";
import { when } from "./Sessions.tsx";

export function Passkeys({ onChanged }: { onChanged: () => void }) {
  const [list, setList] = useState<Passkey[]>([]);
  const [name, setName] = useState("");
  const [editing, setEditing] = useState<{ id: string; name: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    accessApi.passkeys().then(setList, () => {});
  }, []);
  useEffect(load, [load]);

  async function add(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      const optionsJSON = await accessApi.passkeyOptions();
      const response = await startRegistration({ optionsJSON });
      const added = await accessApi.addPasskey(name.trim() || "Passkey", response);
      secondFactorAdded();
      showFlash(`Passkey ${added.name} added`, "success");
      setName("");
      load();
      onChanged();
    } catch (err) {
      if (!(err instanceof ApiError)) showFlash("No passkey was made.", "info");
    } finally {
      setBusy(false);
    }
  }

  async function rename(e: FormEvent) {
    e.preventDefault();
    if (!editing) return;
    try {
      setList(await accessApi.renamePasskey(editing.id, editing.name));
      setEditing(null);
    } catch {
      // flashed
    }
  }

  async function remove(p: Passkey) {
    try {
      setList(await accessApi.removePasskey(p.id));
      showFlash(`Passkey ${p.name} removed`, "success");
      onChanged();
    } catch {
      // flashed
    }
  }

  return (
    <Panel title="Passkeys">
      <Stack spacing={2}>
        <Typography variant="body2" color="text.secondary">
          A passkey (fingerprint, face, phone or security key) signs you in without a password, or as the
          second step.
        </Typography>
        <Box
          component="form"
          aria-label="Add Passkey"
          onSubmit={add}
          sx={{ display: "flex", gap: 1, flexWrap: "wrap", alignItems: "start" }}
        >
          <TextField
            label="Passkey name"
            placeholder="My phone"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <Button type="submit" disabled={busy} sx={{ minHeight: 56 }}>Add Passkey</Button>
        </Box>
        <Stack component="ul" spacing={1} sx={{ listStyle: "none", p: 0, m: 0 }} aria-label="Passkeys">
          {list.map((p) => (
            <Box
              component="li"
              key={p.id}
              sx={{
                display: "flex",
                alignItems: "center",
                gap: 1,
                borderBottom: 1,
                borderColor: "divider",
                pb: 1,
              }}
            >
              {editing?.id === p.id
                ? (
                  <Box
                    component="form"
                    aria-label={`Rename ${p.name}`}
                    onSubmit={rename}
                    sx={{ display: "flex", gap: 1, flexGrow: 1, flexWrap: "wrap" }}
                  >
                    <TextField
                      size="small"
                      label="New name"
                      value={editing.name}
                      autoFocus
                      onChange={(e) => setEditing({ ...editing, name: e.target.value })}
                    />
                    <Button type="submit" sx={{ minHeight: 44 }}>Save</Button>
                    <Button variant="text" onClick={() => setEditing(null)}>Cancel</Button>
                  </Box>
                )
                : (
                  <>
                    <Box sx={{ flexGrow: 1, minWidth: 0 }}>
                      <Typography sx={{ fontWeight: 600 }}>{p.name}</Typography>
                      <Typography variant="body2" color="text.secondary">
                        added {when(p.created_at)} ·{" "}
                        {p.last_used_at ? `last used ${when(p.last_used_at)}` : "not used yet"}
                      </Typography>
                    </Box>
                    <IconButton
                      aria-label={`Rename passkey ${p.name}`}
                      onClick={() => setEditing({ id: p.id, name: p.name })}
                      sx={{ width: 44, height: 44 }}
                    >
                      <EditIcon />
                    </IconButton>
                    <DeleteButton
                      title={`Remove ${p.name}`}
                      label={`Remove passkey ${p.name}`}
                      need="viewer"
                      onClick={() => void remove(p)}
                    />
                  </>
                )}
            </Box>
          ))}
        </Stack>
      </Stack>
    </Panel>
  );
}
