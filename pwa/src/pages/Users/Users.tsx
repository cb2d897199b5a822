import { DeleteButton } from "../../components/DeleteButton.tsx";
import { type FormEvent, useCallback, useEffect, useState } from "react";
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
import { accessApi } from "../../api/access.ts";
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

/** The hidden-on-phones email column: on a phone the email goes under the name, so the row fits 390 px. */
const WIDE_ONLY = { display: { xs: "none", sm: "table-cell" } } as const;

function UserList(
  { users, onDelete, onChanged }: { users: User[]; onDelete: (u: string) => void; onChanged: () => void },
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
            {users.map((u) => (
              <TableRow key={u.username}>
                <TableCell sx={{ wordBreak: "break-word", px: { xs: 1, sm: 2 } }}>
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
                <TableCell sx={{ px: { xs: 0.5, sm: 2 } }}>
                  <RoleSelect user={u} onChanged={onChanged} />
                </TableCell>
                <TableCell sx={{ ...WIDE_ONLY, wordBreak: "break-all" }}>{u.email}</TableCell>
                <TableCell align="right" sx={{ px: { xs: 0.5, sm: 2 } }}>
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
            ))}
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
  const load = useCallback(() => {
    usersApi.list().then(setUsers, () => {});
  }, []);
  useEffect(load, [load]);
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
      <UserList users={users} onDelete={setToDelete} onChanged={load} />
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
