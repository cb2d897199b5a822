// What the signed-in user's role may do, for hiding and disabling controls. The server decides; this
// only keeps people from pressing buttons that would be refused.

import { useSnapshot } from "valtio";
import { session } from "./session.ts";
import { type Role, roleAtLeast } from "../../../shared/api.ts";

/** True when the signed-in user has at least `need`. An old stored user without a role counts as admin. */
export function useCan(need: Role): boolean {
  const { user } = useSnapshot(session);
  return roleAtLeast((user?.role as Role | undefined) ?? "admin", need);
}

export const VIEWER_NOTE = "Your role (viewer) can look but not change anything here.";
