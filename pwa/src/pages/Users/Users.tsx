import { DeleteButton } from "../../components/DeleteButton.tsx";
import { type FormEvent, Fragment, useCallback, useEffect, useState } from "react";
import {
  Alert,
  Box,
  Button,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from "@mui/material";
import { Page, Panel } from "../../components/Page.tsx";
import { usersApi } from "../../api/users.ts";
import { showFlash } from "../../state/flash.ts";
import type { User } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { validateNewUser, validatePasswordChange } from "../../../../shared/validation.ts";
import { useForm } from "../../components/useForm.ts";
import { session } from "../../state/session.ts";
import { useSnapshot } from "valtio";
import { accessApi, type ServerName, serverNames } from "../../api/access.ts";
import { useCan } from "../../state/access.ts";
import { type Role, ROLES } from "../../../../shared/api.ts";
import { useLocation } from "react-router-dom";
import { ACCESS_MSG, ROLE_HELP } from "../../../../shared/access.ts";

function RoleSelect({ user, onChanged }: { user: User; onChanged: () => void }) {
  return (
    <TextField
      select
      size="small"
      value={user.role}
      slotProps={{ htmlInput: { "aria-label": `Role of ${user.username}` } }}
      onChange={async (e) => {
        try {
          showFlash(await accessApi.setRole(user.username, e.target.value as Role), "success");
        } catch {
          // flashed by the client (the last admin must stay one)
        }
        onChanged();
      }}
      sx={{ minWidth: { xs: 112, sm: 130 } }}
    >
      {ROLES.map((r) => <MenuItem key={r} value={r}>{r}</MenuItem>)}
    </TextField>
  );
}

/** A viewer's or operator's role on one server, as the choice reads. */
const SERVER_CHOICES = [
  { value: "operator", label: "Operator" },
  { value: "viewer", label: "Viewer" },
  { value: "none", label: "No access" },
] as const;

/**
 * A viewer's or operator's role on each server, one small choice per server (an admin has every server).
 * A change holds from the user's next request; their sessions stay open.
 */
export function ServerRoles(
  { user, servers, onChanged }: { user: User; servers: ServerName[]; onChanged: () => void },
) {
  return (
    <Box
      role="group"
      aria-label={`Servers of ${user.username}`}
      sx={{ display: "flex", flexWrap: "wrap", gap: 1, alignItems: "center" }}
    >
      <Typography variant="body2" color="text.secondary" sx={{ mr: 0.5 }}>Servers</Typography>
      {servers.map((s) => (
        <TextField
          key={s.id}
          select
          size="small"
          label={s.name}
          value={user.servers?.[String(s.id)] ?? "none"}
          onChange={async (e) => {
            const v = e.target.value;
            try {
              const role = v === "none" ? null : v as "operator" | "viewer";
              showFlash(await accessApi.setServers(user.username, { [s.id]: role }), "success");
            } catch {
              // flashed by the client
            }
            onChanged();
          }}
          sx={{ minWidth: 128, maxWidth: 220 }}
        >
          {SERVER_CHOICES.map((c) => <MenuItem key={c.value} value={c.value}>{c.label}</MenuItem>)}
        </TextField>
      ))}
    </Box>
  );
}

/** The hidden-on-phones email column: on a phone the email goes under the name, so the row fits 390 px. */
const WIDE_ONLY = { display: { xs: "none", sm: "table-cell" } } as const;

function UserList(
  { users, servers, onDelete, onChanged }: {
    users: User[];
    servers: ServerName[];
    onDelete: (u: string) => void;
    onChanged: () => void;
  },
) {
  const { user: me } = useSnapshot(session);
  return (
    <Panel title="List of Users">
      <TableContainer>
        <Table size="small" aria-label="Users">
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell>Role</TableCell>
              <TableCell sx={WIDE_ONLY}>Email</TableCell>
              <TableCell align="right" sx={{ whiteSpace: "nowrap" }}>Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {users.map((u) => {
              // A viewer's or operator's servers go on a line of their own under the row.
              const perServer = u.role !== "admin" && servers.length > 0;
              const under = perServer ? { borderBottom: 0 } : {};
              return (
                <Fragment key={u.username}>
                  <TableRow>
                    <TableCell sx={{ wordBreak: "break-word", px: { xs: 1, sm: 2 }, ...under }}>
                      {u.username}
                      {me?.username === u.username ? " (you)" : ""}
                      <Typography
                        variant="body2"
                        color="text.secondary"
                        sx={{ display: { sm: "none" }, wordBreak: "break-all" }}
                      >
                        {u.email}
                      </Typography>
                    </TableCell>
                    <TableCell sx={{ px: { xs: 0.5, sm: 2 }, ...under }}>
                      <RoleSelect user={u} onChanged={onChanged} />
                    </TableCell>
                    <TableCell sx={{ ...WIDE_ONLY, wordBreak: "break-all", ...under }}>{u.email}</TableCell>
                    <TableCell align="right" sx={{ px: { xs: 0.5, sm: 2 }, ...under }}>
                      {me?.username === u.username
                        ? (
                          <DeleteButton
                            title="You cannot delete your own account"
                            label={`Delete user ${u.username} (not possible: it is you)`}
                            disabled
                            onClick={() => {}}
                          />
                        )
                        : (
                          <DeleteButton
                            title={`Delete ${u.username}`}
                            label={`Delete user ${u.username}`}
                            onClick={() => onDelete(u.username)}
                          />
                        )}
                    </TableCell>
                  </TableRow>
                  {perServer && (
                    <TableRow>
                      <TableCell colSpan={4} sx={{ pt: 0, px: { xs: 1, sm: 2 } }}>
                        <ServerRoles user={u} servers={servers} onChanged={onChanged} />
                      </TableCell>
                    </TableRow>
                  )}
                </Fragment>
              );
            })}
          </TableBody>
        </Table>
      </TableContainer>
    </Panel>
  );
}

export function ChangePassword() {
  const form = useForm(
    { old_password: "", new_password: "", new_password_confirmation: "" },
    validatePasswordChange,
  );
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!form.check()) return;
    setBusy(true);
    try {
      await usersApi.changePassword(form.values);
      showFlash(MSG.passwordChanged, "success");
      form.reset();
      // The generated password is gone: the layout stops asking to change it.
      if (session.user) session.user = { ...session.user, generated_password: undefined };
    } catch {
      // the client flashed the server's message
    } finally {
      setBusy(false);
    }
  }
  return (
    <Box id="change-password" sx={{ scrollMarginTop: 16 }}>
      <Panel title="Change Password">
        <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Change Password">
          <Typography variant="body2" color="text.secondary">{ACCESS_MSG.passwordChangeRevokes}</Typography>
          <TextField
            label="Old Password"
            type="password"
            autoComplete="current-password"
            {...form.field("old_password")}
          />
          <TextField
            label="New Password"
            type="password"
            autoComplete="new-password"
            {...form.field("new_password")}
            helperText={form.field("new_password").helperText ?? PANEL_MSG.passwordRule}
          />
          <TextField
            label="New Password Confirmation"
            type="password"
            autoComplete="new-password"
            {...form.field("new_password_confirmation")}
          />
          <Box>
            <Button type="submit" disabled={busy}>Change Password</Button>
          </Box>
        </Stack>
      </Panel>
    </Box>
  );
}

function CreateUser({ onCreated }: { onCreated: () => void }) {
  const form = useForm({ username: "", email: "", password: "", password_confirmation: "" }, validateNewUser);
  const [busy, setBusy] = useState(false);
  // The least privilege unless the admin chooses more (the API's own default stays admin for the old panel).
  const [role, setRole] = useState<Role>("viewer");
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!form.check()) return;
    setBusy(true);
    const v = form.values;
    try {
      const message = await usersApi.add({ ...v, username: v.username.trim(), email: v.email.trim(), role });
      showFlash(message, "success");
      form.reset();
      onCreated();
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }
  return (
    <Panel title="Create User">
      <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Create User">
        <TextField label="Username" autoComplete="off" {...form.field("username")} />
        <TextField
          select
          label="Role"
          name="role"
          value={role}
          onChange={(e) => setRole(e.target.value as Role)}
          helperText={ROLE_HELP[role]}
          slotProps={{ select: { renderValue: (v) => String(v) } }}
        >
          {/* Each choice says what it allows, so the choice is made knowing it. */}
          {ROLES.map((r) => (
            <MenuItem key={r} value={r} sx={{ display: "block", whiteSpace: "normal", maxWidth: 420 }}>
              <Typography component="span" sx={{ display: "block", fontWeight: 600 }}>{r}</Typography>
              <Typography component="span" variant="body2" color="text.secondary" sx={{ display: "block" }}>
                {ROLE_HELP[r]}
              </Typography>
            </MenuItem>
          ))}
        </TextField>
        <TextField label="Email" type="email" autoComplete="email" {...form.field("email")} />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          {...form.field("password")}
          helperText={form.field("password").helperText ?? PANEL_MSG.passwordRule}
        />
        <TextField
          label="Password Confirmation"
          type="password"
          autoComplete="new-password"
          {...form.field("password_confirmation")}
        />
        <Box>
          <Button type="submit" disabled={busy}>Create User</Button>
        </Box>
      </Stack>
    </Panel>
  );
}

export default function Users() {
  // The role can change while the page is open (the app reads the session again): the admin's part is a
  // component of its own, so its hooks come and go with it.
  const isAdmin = useCan("admin");
  if (!isAdmin) {
    return (
      <Page title="Users">
        <Alert severity="info">
          Only admins manage panel users. Your own password, sessions and sign-in are under Account.
        </Alert>
      </Page>
    );
  }
  return <ManageUsers />;
}

function ManageUsers() {
  const [users, setUsers] = useState<User[]>([]);
  const [servers, setServers] = useState<ServerName[]>([]);
  const load = useCallback(() => {
    usersApi.list().then(setUsers, () => {});
  }, []);
  useEffect(load, [load]);
  useEffect(() => {
    serverNames().then(setServers, () => {});
  }, []);
  const [toDelete, setToDelete] = useState<string | null>(null);
  const { hash } = useLocation();
  // From the "change the generated password" prompt: bring the form into view and focus it.
  useEffect(() => {
    if (hash !== "#change-password") return;
    const el = document.getElementById("change-password");
    el?.scrollIntoView({ block: "start" });
    el?.querySelector("input")?.focus();
  }, [hash]);
  async function remove(username: string) {
    try {
      showFlash(await usersApi.remove(username), "success");
    } catch {
      // flashed by the client
    }
    load();
  }

  return (
    <Page title="Users">
      <UserList users={users} servers={servers} onDelete={setToDelete} onChanged={load} />
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete User"
        message={`Delete the user ${toDelete ?? ""}? They are signed out at once and can no longer sign in.`}
        confirmLabel="Delete"
        danger
        onConfirm={() => toDelete && void remove(toDelete)}
        onClose={() => setToDelete(null)}
      />
      <Box
        sx={{
          display: "grid",
          gap: 2.5,
          gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" },
          alignItems: "start",
        }}
      >
        <ChangePassword />
        <CreateUser onCreated={load} />
      </Box>
    </Page>
  );
}
