// What the signed-in user's role may do, for hiding and disabling controls. The server decides; this
// only keeps people from pressing buttons that would be refused. A role is per server: an operator of one
// server may be a viewer of another (admins: everything).

import { useSnapshot } from "valtio";
import { session } from "./session.ts";
import { current } from "./current.ts";
import { serverList } from "./servers.ts";
import { type Role, roleAtLeast, type User } from "../../../shared/api.ts";
import type { ServerSummary } from "../../../shared/contract/servers.ts";

/**
 * The user's role on server `id`: the servers list says it; else the user's own record (its per-server
 * roles, then its role). An old stored user without a role counts as admin.
 */
export function roleOn(user: User | null, list: readonly ServerSummary[] | null, id: number): Role {
  const role = (user?.role as Role | undefined) ?? "admin";
  if (role === "admin") return role;
  // A list read while the user was still an admin says "admin" everywhere: the session says otherwise now.
  const listed = list?.find((s) => s.id === id)?.role;
  return (listed === "admin" ? undefined : listed) ?? user?.servers?.[String(id)] ?? role;
}

/** True when the signed-in user has at least `need` on the server shown. */
export function useCan(need: Role): boolean {
  const { user } = useSnapshot(session);
  const { server } = useSnapshot(current);
  const { list } = useSnapshot(serverList);
  return roleAtLeast(roleOn(user as User | null, list as ServerSummary[] | null, server), need);
}

export const VIEWER_NOTE = "Your role (viewer) can look but not change anything here.";
