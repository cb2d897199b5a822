import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startPanel } from "../../tests/support/harness.ts";

Deno.test("the built app is served: files, index.html for app routes, 404 for missing files", async () => {
  const dist = mkdtempSync(join(tmpdir(), "dist-"));
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>panel</title>");
  writeFileSync(join(dist, "assets", "app-abc123.js"), "console.log(1)");
  writeFileSync(join(dist, "sw.js"), "self.x=1");
  writeFileSync(join(tmpdir(), "outside-secret.txt"), "secret");
  const p = await startPanel({ args: ["--static-dir", dist] });
  try {
    for (const path of ["/", "/login", "/mods", "/user-management", "/no/such/page"]) {
      const r = await fetch(p.url + path);
      assert.equal(r.status, 200, path);
      assert.match(await r.text(), /<title>panel<\/title>/);
      assert.equal(r.headers.get("Cache-Control"), "no-cache");
      assert.match(r.headers.get("Content-Security-Policy") ?? "", /frame-ancestors 'none'/);
    }
    const asset = await fetch(p.url + "/assets/app-abc123.js");
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get("Content-Type")!, /javascript/);
    assert.match(asset.headers.get("Cache-Control")!, /immutable/);
    await asset.body?.cancel();
    const sw = await fetch(p.url + "/sw.js");
    assert.equal(sw.headers.get("Cache-Control"), "no-cache", "a new service worker is picked up at once");
    await sw.body?.cancel();
    for (
      const path of [
        "/assets/missing.js",
        "/%2e%2e/outside-secret.txt",
        "/..%2foutside-secret.txt",
        "/%00.js",
      ]
    ) {
      const r = await fetch(p.url + path);
      assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
      assert.doesNotMatch(await r.text(), /secret/);
    }
  } finally {
    await p.close();
    rmSync(dist, { recursive: true, force: true });
    rmSync(join(tmpdir(), "outside-secret.txt"), { force: true });
  }
});

Deno.test("without a built app, app routes explain how to build it", async () => {
  const p = await startPanel({ args: ["--static-dir", join(tmpdir(), "definitely-not-built")] });
  try {
    const r = await fetch(p.url + "/");
    assert.equal(r.status, 503);
    assert.match(await r.text(), /npm start/);
  } finally {
    await p.close();
  }
});

Deno.test("precompressed copies are served to clients that take them; index.html, sw.js and the manifest revalidate with 304", async () => {
  const { compressDir } = await import("../../scripts/compress.mjs");
  const { gunzipSync, brotliDecompressSync } = await import("node:zlib");
  const dist = mkdtempSync(join(tmpdir(), "dist-"));
  mkdirSync(join(dist, "assets"));
  const js = "export const answer = 42;\n".repeat(200);
  const html = "<!doctype html><title>panel</title>" + "<!-- padding -->".repeat(100);
  writeFileSync(join(dist, "index.html"), html);
  writeFileSync(join(dist, "assets", "app-abc123.js"), js);
  writeFileSync(join(dist, "sw.js"), "self.x=1;".repeat(200));
  writeFileSync(
    join(dist, "manifest.webmanifest"),
    JSON.stringify({ name: "Factorio Panel", pad: "x".repeat(2000) }),
  );
  compressDir(dist);
  const p = await startPanel({ args: ["--static-dir", dist] });
  try {
    const get = (path: string, headers: Record<string, string> = {}) => fetch(p.url + path, { headers });
    // Deno's fetch would decode for us; raw bytes are what the browser decodes, so read them as they are.
    let r = await get("/assets/app-abc123.js", { "Accept-Encoding": "gzip, deflate, br" });
    assert.equal(r.headers.get("Content-Encoding"), "br");
    assert.equal(r.headers.get("Vary"), "Accept-Encoding");
    assert.match(r.headers.get("Cache-Control")!, /immutable/);
    assert.equal(await r.text(), js, "the brotli copy decodes to the file");
    r = await get("/assets/app-abc123.js", { "Accept-Encoding": "gzip" });
    assert.equal(r.headers.get("Content-Encoding"), "gzip");
    assert.equal(await r.text(), js);
    r = await get("/assets/app-abc123.js", { "Accept-Encoding": "br;q=0, identity" });
    assert.equal(r.headers.get("Content-Encoding"), null, "q=0 refuses a coding");
    assert.equal(r.headers.get("Vary"), "Accept-Encoding");
    assert.equal(await r.text(), js);
    assert.ok(brotliDecompressSync(readFileSync(join(dist, "assets", "app-abc123.js.br"))).toString() === js);
    assert.ok(gunzipSync(readFileSync(join(dist, "assets", "app-abc123.js.gz"))).toString() === js);

    for (const path of ["/", "/login", "/sw.js", "/manifest.webmanifest"]) {
      const first = await get(path, { "Accept-Encoding": "br" });
      assert.equal(first.status, 200, path);
      assert.equal(first.headers.get("Cache-Control"), "no-cache", path);
      const etag = first.headers.get("ETag")!;
      const lastModified = first.headers.get("Last-Modified")!;
      assert.ok(etag && lastModified, path);
      await first.body?.cancel();
      const again = await get(path, { "Accept-Encoding": "br", "If-None-Match": etag });
      assert.equal(again.status, 304, `${path} with its ETag`);
      assert.equal(again.headers.get("ETag"), etag);
      assert.equal(await again.text(), "");
      const since = await get(path, { "If-Modified-Since": lastModified });
      assert.equal(since.status, 304, `${path} with If-Modified-Since`);
      await since.body?.cancel();
      const other = await get(path, { "If-None-Match": 'W/"something-else"' });
      assert.equal(other.status, 200, `${path} with another ETag`);
      await other.body?.cancel();
    }

    // A new build of index.html: the old compressed copy (older than the file) is not served, the ETag moves.
    const before = (await get("/", { "Accept-Encoding": "br" })).headers.get("ETag")!;
    const newer = html.replace("panel", "panel v2");
    writeFileSync(join(dist, "index.html"), newer);
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dist, "index.html"), later, later);
    r = await get("/", { "Accept-Encoding": "br", "If-None-Match": before });
    assert.equal(r.status, 200, "a changed file is not 304");
    assert.equal(r.headers.get("Content-Encoding"), null, "a stale compressed copy is not served");
    assert.equal(await r.text(), newer);
  } finally {
    await p.close();
    rmSync(dist, { recursive: true, force: true });
  }
});

Deno.test("/login gets login.html (the pre-rendered sign-in card) when built; every other app route index.html", async () => {
  const dist = mkdtempSync(join(tmpdir(), "dist-"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>app</title>");
  const p = await startPanel({ args: ["--static-dir", dist] });
  try {
    assert.match(
      await (await fetch(p.url + "/login")).text(),
      /<title>app<\/title>/,
      "without login.html, index.html",
    );
    writeFileSync(join(dist, "login.html"), '<!doctype html><title>app</title><div id="login-shell"></div>');
    const login = await fetch(p.url + "/login");
    assert.match(await login.text(), /login-shell/);
    assert.equal(login.headers.get("Cache-Control"), "no-cache");
    for (const path of ["/", "/mods", "/login/more", "/help"]) {
      assert.doesNotMatch(await (await fetch(p.url + path)).text(), /login-shell/, path);
    }
  } finally {
    await p.close();
    rmSync(dist, { recursive: true, force: true });
  }
});

/** What a browser allows an inline script by: SHA-256 of its text, base64 (WebCrypto, not the panel's code). */
async function browserHash(text: string): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toBase64();
}

Deno.test("an HTML file's own inline scripts are allowed by their hashes in its CSP, and nothing else is", async () => {
  const dist = mkdtempSync(join(tmpdir(), "dist-"));
  writeFileSync(
    join(dist, "index.html"),
    '<!doctype html><title>app</title><script type="module" src="/assets/a.js"></script>',
  );
  const first = 'document.body.dataset.ready = "1";\r\nconsole.log("$&")';
  writeFileSync(
    join(dist, "login.html"),
    `<!doctype html><title>app</title><script type="module" src="/assets/a.js"></script><div id="login-shell"></div>` +
      `<SCRIPT type="module" async>${first}</SCRIPT><script></script>`,
  );
  const p = await startPanel({ args: ["--static-dir", dist] });
  const scriptSrc = async (path: string) => {
    const r = await fetch(p.url + path);
    await r.body?.cancel();
    const csp = r.headers.get("Content-Security-Policy") ?? "";
    assert.match(csp, /frame-ancestors 'none'/, path);
    return /(?:^|; )script-src ([^;]*)/.exec(csp)?.[1];
  };
  try {
    // The HTML parser reads CR LF as LF, and the browser hashes what it parsed.
    assert.equal(
      await scriptSrc("/login"),
      `'self' 'sha256-${await browserHash(first.replace("\r\n", "\n"))}'`,
    );
    assert.equal(await scriptSrc("/"), "'self'", "no inline script, no hash");
    assert.equal(await scriptSrc("/mods"), "'self'");
    // A new build's login.html: its script, and no longer the old one.
    const second = "console.log(2)";
    writeFileSync(
      join(dist, "login.html"),
      `<!doctype html><div id="login-shell"></div><script type="module" async>${second}</script>`,
    );
    utimesSync(join(dist, "login.html"), new Date(), new Date(Date.now() + 5000));
    assert.equal(await scriptSrc("/login"), `'self' 'sha256-${await browserHash(second)}'`);
  } finally {
    await p.close();
    rmSync(dist, { recursive: true, force: true });
  }
});
