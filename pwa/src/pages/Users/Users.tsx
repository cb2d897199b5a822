import { useCallback, useEffect, useState, type FormEvent } from "react";
import {
  Box,
  Button,
  IconButton,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
} from "@mui/material";
import DeleteIcon from "@mui/icons-material/Delete";
import { Page, Panel } from "../../components/Page.tsx";
import { usersApi } from "../../api/users.ts";
import { showFlash } from "../../state/flash.ts";
import type { User } from "../../../../shared/api.ts";
import { MSG } from "../../../../shared/messages.ts";
import {
  type FieldErrors,
  type NewUserField,
  type PasswordChangeField,
  validateNewUser,
  validatePasswordChange,
} from "../../../../shared/validation.ts";
import { session } from "../../state/session.ts";
import { useSnapshot } from "valtio";

function UserList({ users, onDelete }: { users: User[]; onDelete: (u: string) => void }) {
  const { user: me } = useSnapshot(session);
  return (
    <Panel title="List of Users">
      <TableContainer>
        <Table size="small" aria-label="Users">
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell>Role</TableCell>
              <TableCell>Email</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {users.map((u) => (
              <TableRow key={u.username}>
                <TableCell>{u.username}{me?.username === u.username ? " (you)" : ""}</TableCell>
                <TableCell>{u.role}</TableCell>
                <TableCell>{u.email}</TableCell>
                <TableCell align="right">
                  <Tooltip title={`Delete ${u.username}`}>
                    <IconButton aria-label={`Delete user ${u.username}`} onClick={() => onDelete(u.username)} color="error">
                      <DeleteIcon />
                    </IconButton>
                  </Tooltip>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Panel>
  );
}

const emptyPassword = { old_password: "", new_password: "", new_password_confirmation: "" };

function ChangePassword() {
  const [v, setV] = useState(emptyPassword);
  const [errors, setErrors] = useState<FieldErrors<PasswordChangeField>>({});
  const [busy, setBusy] = useState(false);
  const field = (key: PasswordChangeField, label: string, autoComplete: string) => (
    <TextField
      label={label}
      type="password"
      name={key}
      autoComplete={autoComplete}
      value={v[key]}
      onChange={(e) => setV({ ...v, [key]: e.target.value })}
      error={!!errors[key]}
      helperText={errors[key]}
    />
  );
  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validatePasswordChange(v);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await usersApi.changePassword(v);
      showFlash(MSG.passwordChanged, "success");
      setV(emptyPassword);
    } catch {
      // the client flashed the server's message
    } finally {
      setBusy(false);
    }
  }
  return (
    <Panel title="Change Password">
      <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Change Password">
        {field("old_password", "Old Password", "current-password")}
        {field("new_password", "New Password", "new-password")}
        {field("new_password_confirmation", "New Password Confirmation", "new-password")}
        <Box><Button type="submit" disabled={busy}>Change Password</Button></Box>
      </Stack>
    </Panel>
  );
}

const emptyUser = { username: "", email: "", password: "", password_confirmation: "" };

function CreateUser({ onCreated }: { onCreated: () => void }) {
  const [v, setV] = useState(emptyUser);
  const [errors, setErrors] = useState<FieldErrors<NewUserField>>({});
  const [busy, setBusy] = useState(false);
  const field = (key: NewUserField, label: string, type = "text", autoComplete = "off") => (
    <TextField
      label={label}
      type={type}
      name={key}
      autoComplete={autoComplete}
      value={v[key]}
      onChange={(e) => setV({ ...v, [key]: e.target.value })}
      error={!!errors[key]}
      helperText={errors[key]}
    />
  );
  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validateNewUser(v);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const message = await usersApi.add({ ...v, username: v.username.trim(), email: v.email.trim(), role: "admin" });
      showFlash(message, "success");
      setV(emptyUser);
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
        {field("username", "Username")}
        <TextField label="Role" name="role" value="admin" slotProps={{ input: { readOnly: true } }} helperText="Every user is an admin." />
        {field("email", "Email", "email", "email")}
        {field("password", "Password", "password", "new-password")}
        {field("password_confirmation", "Password Confirmation", "password", "new-password")}
        <Box><Button type="submit" disabled={busy}>Create User</Button></Box>
      </Stack>
    </Panel>
  );
}

export default function Users() {
  const [users, setUsers] = useState<User[]>([]);
  const load = useCallback(() => {
    usersApi.list().then(setUsers, () => {});
  }, []);
  useEffect(load, [load]);

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
      <UserList users={users} onDelete={(u) => void remove(u)} />
      <Box sx={{ display: "grid", gap: 2.5, gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" }, alignItems: "start" }}>
        <ChangePassword />
        <CreateUser onCreated={load} />
      </Box>
    </Page>
  );
}
