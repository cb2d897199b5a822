// The servers list, adding a server, renaming it or moving its ports, deleting it.

import { mkdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import type { AppContext } from "../boot/context.ts";
import { type Ctx, reply, type Route, route, sessionOf } from "./routes.ts";
import { Conflict, Invalid, NotFound } from "../lib/errors.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import { FIRST_SERVER, type NewServer } from "../../shared/contract/servers.ts";
import { activeVersion, installedVersions } from "../factorio/versions/store.ts";
import type { Build } from "../servers/service.ts";
import type { Server } from "../servers/build.ts";
import { StartupError } from "../lib/errors.ts";
import { prepareServerFiles, serverPorts, type ServerSource } from "../servers/create.ts";

/** Builds a server added while the panel runs: a failure is the request's, not the start's. */
export const buildNow: Build = async (what, make) => {
  try {
    return await make();
  } catch (e) {
    if (e instanceof StartupError) throw new Conflict(e.message);
    throw new Conflict(`${what}: ${(e as Error)?.message ?? String(e)}`);
  }
};

export function serversRoutes(ctx: AppContext): Route[] {
  const { servers } = ctx;
  const idOf = (c: Ctx): number => {
    const id = Number(c.req.param("id"));
    const s = Number.isSafeInteger(id) ? servers.get(id) : null;
    // A server the caller has no role on is not there for them.
    if (!s || ctx.roleOn(sessionOf(c), id) === null) {
      throw new NotFound(SERVERS_MSG.noSuchServer(c.req.param("id")!));
    }
    return id;
  };

  return [
    route("GET /api/servers", (c) => {
      const session = sessionOf(c);
      return servers.all().flatMap((s) => {
        const role = ctx.roleOn(session, s.id);
        return role === null ? [] : [servers.summary(s, role)];
      });
    }),

    route("POST /api/servers", (c, { body }) => {
      c.set("activity", { detail: body.name.trim().slice(0, 100) });
      return addServerNow(ctx, body).then((id) => reply(c, { id }, 201));
    }),

    route("PATCH /api/servers/:id", async (c, { body }) => {
      const id = idOf(c);
      c.set("activity", { detail: servers.nameOf(id) });
      const current = recordOf(servers.get(id)!);
      if (body.port !== undefined || body.rcon_port !== undefined) {
        await serverPorts(
          { port: body.port ?? current.port, rconPort: body.rcon_port ?? current.rconPort },
          servers.all().map((s) => recordOf(s)),
          id,
        );
      }
      await servers.change(id, body, buildNow);
      return SERVERS_MSG.renamed;
    }),

    route("DELETE /api/servers/:id", async (c, { body }) => {
      const id = idOf(c);
      if (id === FIRST_SERVER) throw new Conflict(SERVERS_MSG.firstServerStays);
      const server = servers.get(id)!;
      const name = servers.nameOf(id);
      c.set("activity", { detail: name });
      const withBackup = body.backup !== false;
      if (!withBackup && body.confirm?.trim() !== name) throw new Invalid(SERVERS_MSG.confirmName(name));
      // Stopped first (Save & Stop: the game saves), then held so nothing starts it meanwhile.
      if (server.game.state !== "stopped") await server.game.stop();
      return await server.game.whileStopped("deleting the server", async () => {
        let kept: string | null = null;
        if (withBackup) {
          kept = (await server.backups.before("before-server-delete", ["mods", "settings"]))?.id ?? null;
        }
        // Its backups (the one just made too) go to server 1's, where they outlive the server: a new server
        // can start from one. A rename: the same disk.
        const moved = server.backups.list().map((b) => server.backups.find(b.id).path);
        if (moved.length > 0) {
          mkdirSync(ctx.backups.dir, { recursive: true });
          for (const from of moved) {
            renameSync(from, join(ctx.backups.dir, `${basename(from, ".zip")}_${slug(name)}.zip`));
          }
          await ctx.backups.index.repair(ctx.backups.dir);
        }
        await servers.remove(id);
        // Nobody keeps a role, a token limit, an alert choice or a live room on a server that is gone.
        ctx.hub.forgetServer(id);
        ctx.access.forgetServer(id);
        ctx.alerts.forgetServer(id);
        ctx.push.forgetServer(id);
        return kept ? SERVERS_MSG.deletedAfterBackup(name, kept) : SERVERS_MSG.deleted(name);
      });
    }),
  ];
}

const adding = new WeakMap<AppContext, Promise<unknown>>();

/** One add at a time (POST /api/servers, a server archive's import): two must not pick the same free port. */
export function oneAddAtATime<T>(ctx: AppContext, add: () => Promise<T>): Promise<T> {
  const run = (adding.get(ctx) ?? Promise.resolve()).then(add);
  adding.set(ctx, run.catch(() => {}));
  return run;
}

const slug = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 40) || "server";

/** A server's record as the port checks need it. */
export function recordOf(s: Server) {
  const r = s.record();
  return {
    id: s.id,
    name: r.name,
    root: s.paths.root,
    port: r.port,
    rconPort: s.game.secrets.known()?.port ?? r.rconPort,
  };
}

/** Adds a server as POST /api/servers does (one add at a time); answers its id. */
export function addServerNow(ctx: AppContext, body: NewServer): Promise<number> {
  return oneAddAtATime(ctx, () => addServer(ctx, body));
}

async function addServer(ctx: AppContext, body: NewServer): Promise<number> {
  const { servers } = ctx;
  const others = servers.all().map((s) => recordOf(s));
  const version = body.version ?? activeVersion(ctx.paths.root)?.version ?? null;
  if (version !== null && !installedVersions(ctx.paths.versionsHome).includes(version)) {
    throw new Invalid(SERVERS_MSG.versionNotInstalled(version));
  }
  const ports = await serverPorts({ port: body.port, rconPort: body.rcon_port }, others);
  const from = body.from;
  let source: ServerSource;
  if (!from) source = { kind: "empty" };
  else if ("folder" in from) source = { kind: "folder", dir: from.folder };
  else if ("backup" in from) {
    // A backup of a server (the route is for admins, who see every server); without one named, any.
    const from_ = from.server === undefined ? servers.all() : [servers.get(from.server)];
    const owner = from_.find((s) => s?.backups.list().some((b) => b.id === from.backup)) ?? null;
    if (!owner) throw new Invalid(SERVERS_MSG.backupNotFound(from.backup));
    source = { kind: "backup", file: owner.backups.find(from.backup).path };
  } else {
    const s = servers.get(from.server);
    if (!s) throw new Invalid(SERVERS_MSG.noSuchServer(from.server));
    source = { kind: "copy", root: s.paths.root };
  }
  const server = await servers.add(
    { name: body.name, port: ports.port, rconPort: ports.rconPort, version },
    // The new server's directory: a folder used where it is, or made under its data folder.
    (id) => prepareServerFiles(source, servers.newRoot(id), others),
    buildNow,
  );
  return server.id;
}
