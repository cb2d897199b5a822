// The activity log in words a person reads: "Ran schedule 'Nightly restart' now" for
// "POST /api/schedules/:id/run". Made when shown, from what each record holds (the route, the handler's
// note, the concrete path, the status), so older records read the same. Every state-changing route has
// its words here; backend/activity/words_test.ts walks the route table and fails on one without.

import { type ActivityEntry, REFUSED_SIGN_INS } from "./access.ts";

/** What a record says about its route: the handler's note, and the route's parameters from the path. */
interface Parts {
  note: string;
  params: Record<string, string>;
}

/** A verb in its base form ("run", "turn on") and what it acted on. */
type Words = [verb: string, what: (p: Parts) => string];

const IRREGULAR: Record<string, string> = {
  run: "ran",
  make: "made",
  send: "sent",
  read: "read",
  "put back": "put back",
  "set up": "set up",
  "sign in": "signed in",
  "sign out": "signed out",
  "back up": "backed up",
  "turn on": "turned on",
  "turn off": "turned off",
};

function past(verb: string): string {
  if (IRREGULAR[verb]) return IRREGULAR[verb];
  if (verb.endsWith("e")) return verb + "d";
  if (/[^aeiou][aeiou][pbgnt]$/.test(verb) && !/(en|it)$/.test(verb)) return verb + verb.at(-1) + "ed"; // stop, ban
  return verb + "ed";
}

const quoted = (s: string) => `'${s}'`;
/** The name a handler noted, or the id from the path for records made before notes named it. */
const named = (kind: string, param = "id") => (p: Parts) =>
  p.note ? `${kind} ${quoted(p.note)}` : p.params[param] ? `${kind} #${p.params[param]}` : `a ${kind}`;
const fixed = (text: string) => () => text;
const param = (kind: string, name: string) => (p: Parts) => `${kind} ${quoted(p.params[name] ?? "?")}`;

/** The words of each state-changing route of the API, by its method and path as the table declares it. */
export const ACTIVITY_WORDS: Record<string, Words> = {
  // Signing in and the account.
  "POST /api/login": ["sign in", fixed("")],
  "POST /api/login/second-factor": ["sign in", fixed("with a second factor")],
  "POST /api/login/passkey/options": ["start", fixed("a sign-in with a passkey")],
  "POST /api/login/passkey": ["sign in", fixed("with a passkey")],
  "GET /api/logout": ["sign out", fixed("")],
  "POST /api/user/password": ["change", fixed("their password")],
  "POST /api/user/2fa/totp/setup": ["start", fixed("setting up an authenticator app")],
  "POST /api/user/2fa/totp/confirm": ["turn on", fixed("two-factor sign-in")],
  "POST /api/user/2fa/totp/disable": ["turn off", fixed("two-factor sign-in")],
  "POST /api/user/2fa/recovery": ["make", fixed("new recovery codes")],
  "POST /api/user/tokens": ["make", (p) => p.note ? `API token ${p.note}` : "an API token"],
  "POST /api/user/tokens/:id/revoke": ["revoke", named("API token")],
  "POST /api/user/sessions/:id/revoke": ["end", fixed("a signed-in session")],
  "POST /api/user/passkeys/options": ["start", fixed("adding a passkey")],
  "POST /api/user/passkeys": ["add", named("passkey")],
  "POST /api/user/passkeys/:id": ["rename", fixed("a passkey")],
  "POST /api/user/passkeys/:id/remove": ["remove", fixed("a passkey")],
  // Panel users.
  "POST /api/user/add": ["add", (p) => p.note ? `user ${p.note}` : "a user"],
  "POST /api/user/remove": ["remove", (p) => p.note ? `user ${quoted(p.note)}` : "a user"],
  "POST /api/user/role": ["change", (p) => {
    const [user, role] = p.note.split(" -> ");
    return role ? `the role of ${quoted(user)} to ${role}` : "a user's role";
  }],
  "POST /api/user/servers": ["change", (p) => {
    // The note is "vic: server 1: viewer, server 2: no access".
    const at = p.note.indexOf(": ");
    return at > 0
      ? `the servers of ${quoted(p.note.slice(0, at))} (${p.note.slice(at + 2)})`
      : "a user's servers";
  }],
  // The game server.
  "POST /api/server/start": ["start", fixed("the server")],
  "GET /api/server/stop": ["stop", fixed("the server")],
  "GET /api/server/kill": ["kill", fixed("the server")],
  "POST /api/server/restart": ["restart", fixed("the server")],
  "POST /api/settings/update": ["change", fixed("the server settings")],
  // Saves and the world.
  "GET /api/saves/create/:name": ["create", param("save", "name")],
  "POST /api/saves/upload": ["upload", fixed("a save")],
  "GET /api/saves/rm/:name": ["delete", param("save", "name")],
  "POST /api/saves/mods": ["install", fixed("the mods a save uses")],
  "POST /api/world/preview": ["preview", fixed("a new map")],
  "POST /api/world/create": ["create", fixed("a new map")],
  "POST /api/world/scenarios/start": ["start", fixed("a scenario")],
  "POST /api/world/scenarios/save": ["save", fixed("a scenario as a map")],
  "POST /api/world/exchange-string/decode": ["read", fixed("a map exchange string")],
  "POST /api/world/exchange-string/encode": ["make", fixed("a map exchange string")],
  // Mods.
  "POST /api/mods/toggle": ["switch", fixed("a mod on or off")],
  "POST /api/mods/delete": ["delete", fixed("a mod")],
  "POST /api/mods/delete/all": ["delete", fixed("every mod")],
  "POST /api/mods/update": ["update", fixed("a mod")],
  "POST /api/mods/upload": ["upload", fixed("a mod")],
  "POST /api/mods/pin": ["pin", fixed("a mod's version")],
  "POST /api/mods/portal/login": ["sign in", fixed("to the mod portal")],
  "GET /api/mods/portal/logout": ["sign out", fixed("of the mod portal")],
  "POST /api/mods/portal/install": ["install", fixed("a mod from the portal")],
  "POST /api/mods/portal/install/multiple": ["install", fixed("mods from the portal")],
  "POST /api/mods/packs/create": ["create", fixed("a mod pack")],
  "POST /api/mods/packs/:pack/delete": ["delete", param("mod pack", "pack")],
  "POST /api/mods/packs/:pack/load": ["load", param("mod pack", "pack")],
  "POST /api/mods/packs/:pack/mod/toggle": [
    "switch",
    (p) => `a mod of pack ${quoted(p.params.pack ?? "?")} on or off`,
  ],
  "POST /api/mods/packs/:pack/mod/update": ["update", (p) => `a mod of pack ${quoted(p.params.pack ?? "?")}`],
  "POST /api/mods/packs/:pack/mod/delete": ["delete", (p) => `a mod of pack ${quoted(p.params.pack ?? "?")}`],
  "POST /api/mods/packs/:pack/mod/delete/all": [
    "delete",
    (p) => `every mod of pack ${quoted(p.params.pack ?? "?")}`,
  ],
  "POST /api/mods/packs/:pack/mod/upload": [
    "upload",
    (p) => `a mod into pack ${quoted(p.params.pack ?? "?")}`,
  ],
  "POST /api/mods/packs/:pack/portal/install": [
    "install",
    (p) => `a mod from the portal into pack ${quoted(p.params.pack ?? "?")}`,
  ],
  "POST /api/mods/packs/:pack/portal/install/multiple": [
    "install",
    (p) => `mods from the portal into pack ${quoted(p.params.pack ?? "?")}`,
  ],
  "POST /api/mods/settings/update": ["change", fixed("the mod settings")],
  "POST /api/mods/settings/upload": ["upload", fixed("mod-settings.dat")],
  "POST /api/mods/settings/restore-previous": ["put back", fixed("the previous mod-settings.dat")],
  // Players.
  "POST /api/players/admins/add": ["add", fixed("a player to the game's admins")],
  "POST /api/players/admins/remove": ["remove", fixed("a player from the game's admins")],
  "POST /api/players/whitelist/add": ["add", fixed("a player to the whitelist")],
  "POST /api/players/whitelist/remove": ["remove", fixed("a player from the whitelist")],
  "POST /api/players/whitelist/use": ["switch", fixed("the whitelist on or off")],
  "POST /api/players/bans/add": ["ban", fixed("a player")],
  "POST /api/players/bans/remove": ["lift", fixed("a player's ban")],
  "POST /api/players/kick": ["kick", fixed("a player")],
  // Alerts.
  "POST /api/push/subscribe": ["turn on", fixed("alerts on a device")],
  "POST /api/push/unsubscribe": ["turn off", fixed("alerts on a device")],
  "POST /api/push/devices/:id": ["change", fixed("an alert device")],
  "POST /api/push/test": ["send", fixed("a test alert")],
  "POST /api/notifications/channels": ["add", fixed("an alert channel")],
  "POST /api/notifications/channels/:id": ["change", named("alert channel")],
  "POST /api/notifications/channels/:id/test": ["test", named("alert channel")],
  "POST /api/notifications/channels/:id/delete": ["delete", named("alert channel")],
  // HTTPS.
  "POST /api/https": ["set up", (p) => p.note ? `HTTPS for ${p.note}` : "HTTPS"],
  "POST /api/https/renew": ["renew", fixed("the HTTPS certificate")],
  "POST /api/health/settings": ["change", fixed("the health settings (exact UPS, public status)")],
  // Servers.
  "POST /api/servers": ["add", named("server")],
  "PATCH /api/servers/:id": ["change", named("server")],
  "DELETE /api/servers/:id": ["delete", named("server")],
  "POST /api/servers/import": ["import", fixed("a server from an archive")],
  // Factorio versions.
  "POST /api/factorio/install": ["install", fixed("a Factorio version")],
  "POST /api/factorio/install/cancel": ["cancel", fixed("a Factorio install")],
  "POST /api/factorio/activate": ["switch", fixed("to another Factorio version")],
  "DELETE /api/factorio/versions/:version": ["delete", (p) => `Factorio ${p.params.version ?? ""}`.trim()],
  "POST /api/factorio/check": ["check", fixed("for a new Factorio version")],
  "POST /api/factorio/update": ["update", fixed("Factorio")],
  "POST /api/factorio/update/cancel": ["cancel", fixed("a Factorio update")],
  // Backups and schedules.
  "POST /api/backups": ["make", fixed("a backup")],
  "POST /api/backups/settings": ["change", fixed("the backup settings")],
  "POST /api/backups/:id/restore": ["restore", param("backup", "id")],
  "POST /api/backups/:id/lock": ["change", (p) => `the lock of backup ${quoted(p.params.id ?? "?")}`],
  "POST /api/backups/:id/delete": ["delete", param("backup", "id")],
  "POST /api/schedules": ["create", named("schedule")],
  "POST /api/schedules/:id/update": ["change", named("schedule")],
  "POST /api/schedules/:id/run": ["run", (p) => `${named("schedule")(p)} now`],
  "POST /api/schedules/:id/delete": ["delete", named("schedule")],
  // Moving in.
  "POST /api/import/old-panel/preview": ["preview", fixed("an import from the old panel")],
  "POST /api/import/old-panel": ["import", fixed("from the old panel")],
  "POST /api/import/archive": ["import", fixed("a panel export")],
};

/** The route's parameters (":name") read from the concrete path, when it has them. */
function paramsOf(pattern: string, path: string): Record<string, string> {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return {};
  const out: Record<string, string> = {};
  want.forEach((w, i) => {
    if (w.startsWith(":")) out[w.slice(1)] = got[i];
  });
  return out;
}

function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Why a refused request was refused, in a few words. */
function refusal(status: number, action: string): string {
  if (status === 401 && action === "POST /api/login") return "wrong name or password";
  if (status === 401 && action.startsWith("POST /api/login/")) return "wrong code or passkey";
  if (status === 401) return "not signed in";
  if (status === 403) return "not allowed";
  if (status === 429) return "too many attempts";
  if (status === 404) return "not found";
  if (status === 409 || status === 423) return "not possible right now";
  if (status === 507) return "the disk is full";
  if (status >= 500) return "the panel failed";
  return "refused";
}

/**
 * A record in words: what was done ("Ran schedule 'Nightly restart' now"), or what was tried and why it
 * failed ("Tried to run schedule 'Nightly restart' now: not allowed"). `extra` is what the words do not
 * already say (a console command's text is in them; a summary's counts are not).
 */
export function activityWords(
  e: Pick<ActivityEntry, "action" | "detail" | "status">,
): { text: string; extra: string } {
  const ok = e.status < 400;
  if (e.action === "console") {
    return {
      text: ok
        ? `Sent console command ${quoted(e.detail)}`
        : `Tried to send console command ${quoted(e.detail)}: ${refusal(e.status, e.action)}`,
      extra: "",
    };
  }
  if (e.action === REFUSED_SIGN_INS) {
    return { text: "Sign-in attempts refused by the limit", extra: e.detail };
  }
  const words = ACTIVITY_WORDS[e.action];
  if (!words) return { text: e.action, extra: e.detail };
  // The recorder writes the handler's note, then the concrete path of a route with parameters.
  const pattern = e.action.split(" ")[1] ?? "";
  let target = "";
  if (pattern.includes(":")) {
    const at = e.detail.startsWith("/api/") ? 0 : e.detail.lastIndexOf(" /api/") + 1;
    if (e.detail.startsWith("/api/", at)) target = e.detail.slice(at);
  }
  const note = e.detail.slice(0, e.detail.length - target.length).trim();
  const [verb, what] = words;
  const object = what({ note, params: paramsOf(pattern, target) });
  const done = [past(verb), object].filter(Boolean).join(" ");
  const tried = [verb, object].filter(Boolean).join(" ");
  // A note the words do not carry already (how a sign-in was made) stays beside them.
  const said = note === "" || tried.includes(note.split(" -> ")[0]);
  return {
    text: ok ? sentence(done) : `Tried to ${tried}: ${refusal(e.status, e.action)}`,
    extra: said ? "" : note,
  };
}
