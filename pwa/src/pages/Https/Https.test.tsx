import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import Https, { caDownloadUrl } from "./Https.tsx";
import { session } from "../../state/session.ts";
import { flash } from "../../state/flash.ts";
import type { HttpsState } from "../../../../shared/https.ts";
import { LETS_ENCRYPT } from "../../../../shared/https.ts";

const OFF: HttpsState = {
  mode: "off",
  fixed_by: null,
  certificate: null,
  next_renewal: null,
  busy: false,
  https_port: 443,
  last_error: null,
  acme: {
    directory_url: LETS_ENCRYPT,
    domains: [],
    email: "",
    challenge: "http-01",
    dns_provider: null,
    has_dns_token: false,
    http_port: 80,
    http_listening: false,
  },
  local_ca: null,
};

const ISSUED: HttpsState = {
  ...OFF,
  mode: "acme",
  certificate: {
    subject: "CN=myhome.duckdns.org",
    issuer: "CN=R11, O=Let's Encrypt, C=US",
    names: ["myhome.duckdns.org"],
    not_before: "2026-12-01T00:00:00.000Z",
    not_after: "2027-03-01T00:00:00.000Z",
    serial: "04AB",
    fingerprint_sha256: "AA:BB",
  },
  next_renewal: "2027-01-30T00:00:00.000Z",
  acme: {
    ...OFF.acme,
    domains: ["myhome.duckdns.org"],
    challenge: "dns-01",
    dns_provider: "duckdns",
    has_dns_token: true,
  },
};

const LOCAL: HttpsState = {
  ...OFF,
  mode: "local-ca",
  fixed_by: "--local-ca",
  https_port: 8443,
  certificate: {
    ...ISSUED.certificate!,
    names: ["localhost", "vm", "127.0.0.1", "192.168.1.20"],
    issuer: "CN=Factorio Panel local CA (2026-12-01), O=Factorio Panel",
  },
  acme: { ...OFF.acme, http_listening: true },
  local_ca: {
    subject: "CN=Factorio Panel local CA (2026-12-01), O=Factorio Panel",
    not_after: "2036-11-29T00:00:00.000Z",
    fingerprint_sha256: "12:34:56",
    download_path: "/ca.crt",
    names: ["localhost", "vm", "127.0.0.1", "192.168.1.20"],
  },
};

function stub(answers: Record<string, [number, unknown][]>) {
  const calls: { url: string; method: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? "GET";
      calls.push({ url, method, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      const next = answers[`${method} ${url}`]?.shift();
      if (!next) throw new Error(`unexpected ${method} ${url}`);
      const [status, body] = next;
      return new Response(JSON.stringify(body), { status });
    }),
  );
  return calls;
}

describe("Settings > HTTPS", { timeout: 30_000 }, () => {
  beforeEach(() => {
    session.user = { username: "admin", role: "admin", email: "" };
    flash.items.splice(0);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    session.user = null;
  });

  it("tells a non-admin it is for admins, without asking the server", () => {
    session.user = { username: "vic", role: "operator", email: "" };
    const spy = vi.fn();
    vi.stubGlobal("fetch", spy);
    render(<Https />);
    expect(screen.getByText("Only admins can set up HTTPS.")).toBeTruthy();
    expect(spy).not.toHaveBeenCalled();
  });

  it("gets a certificate by DNS-01: the CA's reason shown as it is, then the certificate once it is there", async () => {
    const calls = stub({
      "GET /api/https": [[200, OFF]],
      "POST /api/https": [
        [
          424,
          "No certificate: The CA could not confirm myhome.duckdns.org: No TXT records found for DNS challenge",
        ],
        [200, ISSUED],
      ],
    });
    render(<Https />);
    expect(await screen.findByText("None: the panel serves plain HTTP")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Domain names"), { target: { value: "MyHome.duckdns.org" } });
    fireEvent.click(screen.getByRole("radio", { name: /^DNS-01/ }));
    fireEvent.change(screen.getByLabelText("DuckDNS API token"), { target: { value: " tok-1 " } });
    fireEvent.click(screen.getByRole("button", { name: "Get certificate" }));
    expect(await screen.findByText(/No TXT records found for DNS challenge/)).toBeTruthy();
    expect(calls.at(-1)).toEqual({
      url: "/api/https",
      method: "POST",
      body: {
        domains: ["myhome.duckdns.org"],
        email: "",
        challenge: "dns-01",
        dns_provider: "duckdns",
        dns_token: "tok-1",
      },
    });
    fireEvent.click(screen.getByRole("button", { name: "Get certificate" }));
    expect(await screen.findByText("Let's Encrypt, renewed by the panel")).toBeTruthy();
    expect(screen.getByText("CN=R11, O=Let's Encrypt, C=US")).toBeTruthy();
    await waitFor(() =>
      expect(flash.items.at(-1)?.message).toBe("The certificate for myhome.duckdns.org is in place.")
    );
    // The token is kept on the panel: the field is empty again, and says one is kept.
    expect((screen.getByLabelText("DuckDNS API token") as HTMLInputElement).value).toBe("");
    expect(screen.getByText(/A token is kept/)).toBeTruthy();
  });

  it("checks the names before asking: a wildcard needs DNS-01", async () => {
    const calls = stub({ "GET /api/https": [[200, OFF]] });
    render(<Https />);
    fireEvent.change(await screen.findByLabelText("Domain names"), { target: { value: "*.example.org" } });
    fireEvent.click(screen.getByRole("button", { name: "Get certificate" }));
    expect(await screen.findByText(/needs the DNS-01 check/)).toBeTruthy();
    expect(calls.filter((c) => c.url.startsWith("/api/https")).map((c) => `${c.method} ${c.url}`)).toEqual([
      "GET /api/https",
    ]);
  });

  it("set on the command line: shown, not changeable", async () => {
    stub({ "GET /api/https": [[200, { ...ISSUED, fixed_by: "--https-domain" }]] });
    render(<Https />);
    expect(await screen.findByText(/Set on the command line \(--https-domain\)/)).toBeTruthy();
    expect((screen.getByLabelText("Domain names") as HTMLInputElement).disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Get certificate" })).toBeNull();
    expect(screen.getByRole("button", { name: "Renew now" })).toBeTruthy();
  });

  it("the local CA: a QR code of the download, its fingerprint, what trusting it means, the steps per system", async () => {
    stub({ "GET /api/https": [[200, LOCAL]] });
    render(<Https />);
    const panel = await screen.findByRole("region", { name: "Trust the panel's CA on a device" });
    const url = caDownloadUrl(LOCAL, location);
    expect(within(panel).getByRole("img", { name: `QR code of ${url}` })).toBeTruthy();
    expect(within(panel).getByText("12:34:56")).toBeTruthy();
    expect(within(panel).getByText(/cannot stand in for a public site/)).toBeTruthy();
    for (const system of ["Android", "iPhone and iPad", "Windows", "macOS", "Linux"]) {
      expect(within(panel).getByText(system)).toBeTruthy();
    }
  });

  it("the download address a phone can open: a LAN address for a page opened on localhost, plain HTTP where the panel listens for it", () => {
    expect(caDownloadUrl(LOCAL, { hostname: "localhost", port: "8443", protocol: "https:" })).toBe(
      "http://192.168.1.20/ca.crt",
    );
    expect(caDownloadUrl(LOCAL, { hostname: "vm.lan", port: "8443", protocol: "https:" })).toBe(
      "http://vm.lan/ca.crt",
    );
    const noPlain = { ...LOCAL, acme: { ...LOCAL.acme, http_listening: false } };
    expect(caDownloadUrl(noPlain, { hostname: "127.0.0.1", port: "8443", protocol: "https:" })).toBe(
      "https://192.168.1.20:8443/ca.crt",
    );
    const v6 = {
      ...noPlain,
      local_ca: { ...LOCAL.local_ca!, names: ["localhost", "::1", "fd00::2"] },
      https_port: 443,
    };
    expect(caDownloadUrl(v6, { hostname: "localhost", port: "", protocol: "https:" })).toBe(
      "https://[fd00::2]/ca.crt",
    );
  });
});
