// Whether the panel is fresh: nobody has set it up yet, so an import may fill it. Apart from the import
// itself (apply.ts, firstrun.ts, which load node: built-ins), so that asking costs nothing.

import type { AppContext } from "../boot/context.ts";
import { Conflict } from "../lib/errors.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";

/** No users, or only the first-start admin with the password the panel made for it. */
export function panelIsFresh(ctx: AppContext): boolean {
  const n = ctx.accounts.users.count();
  if (n === 0) return true;
  const admin = ctx.accounts.users.byName("admin");
  return n === 1 && admin !== undefined && ctx.accounts.usesGeneratedPassword(admin);
}

export function requireFresh(ctx: AppContext): void {
  if (!panelIsFresh(ctx)) throw new Conflict(TRANSFER_MSG.notFresh);
}
