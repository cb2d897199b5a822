// What the panel prints when it starts listening: where to open it (this machine and the LAN addresses a
// phone on the same network can use), why a phone wants HTTPS, and whether the game is where the panel
// looks for it. A newcomer reads this first, so it names paths and next steps rather than internals.

export interface StartupFacts {
  scheme: "http" | "https";
  /** When HTTPS is set up (https/manager.ts). */
  https?: {
    /** The ACME domains: the addresses a phone opens. */
    names: string[];
    /** Why there is no certificate yet (the panel serves plain HTTP until one comes), or null. */
    waiting: string | null;
    plainHttpPort: number;
    /** Why the plain-HTTP listener (HTTP-01, the redirect) is not listening, or null. */
    plainHttpProblem: string | null;
  };
  bind: string;
  port: number;
  /** From Deno.networkInterfaces(); only IPv4 LAN addresses are shown (a phone types them). */
  interfaces: { family: string; address: string; internal?: boolean }[];
  factorioDir: string;
  /** The executable the game starts from: the active version the panel installed, else --factorio-binary. */
  factorioBinary: string;
  binaryFound: boolean;
}

const ANY = new Set(["0.0.0.0", "::", ""]);

function isLoopback(address: string): boolean {
  return address.startsWith("127.") || address === "::1";
}

function hostPart(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** The addresses to open the panel at: localhost first, then each LAN address when bound to all. */
export function panelUrls(
  f: Pick<StartupFacts, "scheme" | "bind" | "port" | "interfaces">,
): { local: string; lan: string[] } {
  const url = (host: string) => `${f.scheme}://${hostPart(host)}:${f.port}`;
  if (!ANY.has(f.bind)) return { local: url(f.bind), lan: [] };
  const lan = f.interfaces
    .filter((i) => i.family === "IPv4" && !i.internal && !isLoopback(i.address))
    .map((i) => url(i.address));
  return { local: url("localhost"), lan: [...new Set(lan)] };
}

export function startupLines(f: StartupFacts): string[] {
  const { local, lan } = panelUrls(f);
  const lines = [`Factorio Panel listening on ${local}`];
  if (lan.length > 0) lines.push(`  On your network: ${lan.join(", ")}`);
  const h = f.https;
  if (h && h.names.length > 0 && f.scheme === "https") {
    const port = f.port === 443 ? "" : `:${f.port}`;
    lines.push(
      `  Over HTTPS as: ${
        h.names.filter((n) => !n.startsWith("*.")).map((n) => `https://${n}${port}`).join(", ")
      }`,
    );
  }
  if (h?.waiting) {
    lines.push(
      `  No HTTPS certificate yet (${h.waiting}): plain HTTP until one comes; see Settings > HTTPS.`,
    );
  }
  if (h?.plainHttpProblem) {
    lines.push(`  Cannot listen on port ${h.plainHttpPort} (--acme-http-port): ${h.plainHttpProblem}.`);
    if (h.plainHttpPort < 1024) lines.push(`  ${lowPortHint()}`);
  }
  if (f.scheme === "http" && !h) {
    lines.push(
      "  Phones need HTTPS to install the panel as an app and to get alerts: start it with --https-domain and",
      "  a name that points here, or --local-ca on a LAN (see the README, HTTPS for phones).",
    );
  }
  if (!f.binaryFound) {
    lines.push(
      "",
      `No Factorio found in ${f.factorioDir} (looked for ${f.factorioBinary}).`,
      "  Install it from the panel: sign in, then Controls, Install Factorio (it downloads the headless server",
      "  from factorio.com and checks it). Or unpack the headless server for Linux from",
      "  https://factorio.com/download there yourself, or start the panel with --factorio-dir pointing at your",
      "  Factorio directory. To try the panel without the game, run `npm run demo`.",
    );
  }
  return lines;
}

/** How a normal user may listen below port 1024 (README, HTTPS for phones). */
export function lowPortHint(deno = execPath()): string {
  return `Ports below 1024 need root or a capability: sudo setcap cap_net_bind_service=+ep ${deno} (again after each npm install), or choose higher ports (--port, --acme-http-port) and forward to them.`;
}

function execPath(): string {
  try {
    return Deno.execPath();
  } catch {
    return "node_modules/deno/deno";
  }
}

/**
 * The first admin's generated password, printed at every start until it is changed: a first start that
 * failed (the port was taken) exited before printing it, and a service manager's log scrolls.
 */
export function generatedPasswordLines(
  admin: { username: string; password: string; created: boolean },
  file: string,
): string[] {
  return [
    "",
    admin.created
      ? "First start: created the user admin."
      : "The user admin still has the password generated at the first start.",
    `  Username: ${admin.username}`,
    `  Password: ${admin.password}`,
    `The password is also in ${file} (readable only by you).`,
    "Sign in and change it under Users; the file is removed when you do, and this is printed at every start until then.",
    "",
  ];
}
