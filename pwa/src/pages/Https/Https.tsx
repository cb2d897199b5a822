// Settings > HTTPS (admins): the certificate the panel serves and where it comes from, getting one from an
// ACME CA (Let's Encrypt) by HTTP-01 or DNS-01, renewing it now, and, with the panel's own CA, how a device
// comes to trust it (a QR code of the download, the steps per system, what trusting it means).

import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Alert,
  Box,
  Button,
  CircularProgress,
  FormControl,
  FormControlLabel,
  FormLabel,
  Link,
  MenuItem,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
} from "@mui/material";
import ExpandMoreIcon from "@mui/icons-material/ExpandMore";
import DownloadIcon from "@mui/icons-material/Download";
import { Page, Panel } from "../../components/Page.tsx";
import { useCan } from "../../state/access.ts";
import { showFlash } from "../../state/flash.ts";
import { httpsApi } from "../../api/https.ts";
import { QrCode } from "../Account/QrCode.tsx";
import {
  type AcmeChallenge,
  DNS_PROVIDER_LABELS,
  DNS_PROVIDERS,
  type DnsProvider,
  emailProblem,
  httpsSettingsProblem,
  type HttpsState,
  LETS_ENCRYPT,
} from "../../../../shared/https.ts";

const DAY = 86_400_000;

function when(iso: string): string {
  return iso.replace("T", " ").slice(0, 16) + " UTC";
}

function daysFromNow(iso: string): string {
  const days = Math.floor((Date.parse(iso) - Date.now()) / DAY);
  if (days < 0) return "ended";
  return days === 0 ? "less than a day left" : days === 1 ? "1 day left" : `${days} days left`;
}

function caName(directory: string): string {
  if (directory === LETS_ENCRYPT) return "Let's Encrypt";
  try {
    return new URL(directory).host;
  } catch {
    return directory;
  }
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ display: "contents" }}>
      <Typography component="dt" color="text.secondary">{label}</Typography>
      <Typography component="dd" sx={{ m: 0, fontWeight: 600, overflowWrap: "anywhere" }}>
        {children}
      </Typography>
    </Box>
  );
}

const SOURCE: Record<HttpsState["mode"], (s: HttpsState) => string> = {
  off: () => "None: the panel serves plain HTTP",
  acme: (s) => `${caName(s.acme.directory_url)}, renewed by the panel`,
  files: () => "The files of --https-cert and --https-key, read again when they change",
  "local-ca": () => "The panel's own certificate authority, renewed by the panel",
};

function CertificatePanel({ state, onChange }: { state: HttpsState; onChange: (s: HttpsState) => void }) {
  const [renewing, setRenewing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cert = state.certificate;
  const renewable = state.mode === "acme" || state.mode === "local-ca";
  const renew = () => {
    setRenewing(true);
    setError(null);
    httpsApi.renew().then((s) => {
      onChange(s);
      showFlash(
        `Renewed: the new certificate is valid until ${when(s.certificate?.not_after ?? "")}.`,
        "success",
      );
    }, (e) => setError((e as Error).message)).finally(() => setRenewing(false));
  };
  return (
    <Panel title="Certificate">
      <Stack spacing={2}>
        {state.mode === "off" && (
          <Alert severity="info">
            The panel serves plain HTTP: phones cannot install it as an app or get its alerts. Get a
            certificate below (a domain name that points at the panel), or start the panel with --local-ca on
            a network without one.
          </Alert>
        )}
        <Box
          component="dl"
          sx={{ display: "grid", gridTemplateColumns: "max-content 1fr", columnGap: 3, rowGap: 0.75, m: 0 }}
        >
          <Fact label="Source">{SOURCE[state.mode](state)}</Fact>
          {cert && (
            <>
              <Fact label="Names">{cert.names.join(", ")}</Fact>
              <Fact label="Issued by">{cert.issuer}</Fact>
              <Fact label="Valid until">{when(cert.not_after)} ({daysFromNow(cert.not_after)})</Fact>
            </>
          )}
          {state.next_renewal && <Fact label="Next renewal">{when(state.next_renewal)}</Fact>}
        </Box>
        {state.last_error && (
          <Alert severity="error" sx={{ overflowWrap: "anywhere" }}>
            Last attempt, {when(state.last_error.at)}: {state.last_error.message}
          </Alert>
        )}
        {error && <Alert severity="error" sx={{ overflowWrap: "anywhere" }}>{error}</Alert>}
        {renewable && (
          <Box>
            <Button
              variant="outlined"
              onClick={renew}
              disabled={renewing || state.busy}
              startIcon={renewing ? <CircularProgress size={18} /> : undefined}
            >
              {renewing ? "Renewing..." : "Renew now"}
            </Button>
          </Box>
        )}
      </Stack>
    </Panel>
  );
}

/** A radio choice with its name and a sentence under it (long labels ran into each other on a phone). */
function Choice({ value, title, text }: { value: string; title: string; text: string }) {
  return (
    <FormControlLabel
      value={value}
      control={<Radio sx={{ mt: -0.75 }} />}
      sx={{ alignItems: "flex-start", mr: 0 }}
      label={
        <Box>
          <Typography sx={{ fontWeight: 600 }}>{title}</Typography>
          <Typography variant="body2" color="text.secondary">{text}</Typography>
        </Box>
      }
    />
  );
}

interface Form {
  domains: string;
  email: string;
  challenge: AcmeChallenge;
  provider: DnsProvider;
  token: string;
}

function formOf(s: HttpsState): Form {
  return {
    domains: s.acme.domains.join(", "),
    email: s.acme.email,
    challenge: s.acme.challenge,
    provider: s.acme.dns_provider ?? "duckdns",
    token: "",
  };
}

function domainsOf(text: string): string[] {
  return text.split(/[\s,]+/).map((d) => d.trim().toLowerCase()).filter(Boolean);
}

function AcmePanel({ state, onChange }: { state: HttpsState; onChange: (s: HttpsState) => void }) {
  const [form, setForm] = useState<Form>(() => formOf(state));
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const title = `Certificate from ${caName(state.acme.directory_url)}`;
  if (state.fixed_by === "--https-cert" || state.fixed_by === "--local-ca") {
    return (
      <Panel title={title}>
        <Typography>
          The panel was started with {state.fixed_by}. For a certificate from{" "}
          {caName(state.acme.directory_url)}{" "}
          instead, start it with --https-domain and a name that points at it (see the README, HTTPS for
          phones).
        </Typography>
      </Panel>
    );
  }
  const fixed = state.fixed_by === "--https-domain";
  const dns = form.challenge === "dns-01";
  const set = (k: keyof Form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const problem = httpsSettingsProblem({
    domains: domainsOf(form.domains),
    challenge: form.challenge,
    dns_provider: dns ? form.provider : null,
  }) ??
    (form.email.trim() && emailProblem(form.email.trim())
      ? `The e-mail address ${emailProblem(form.email.trim())}.`
      : null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problem) return setError(problem);
    setSending(true);
    setError(null);
    httpsApi.configure({
      domains: domainsOf(form.domains),
      email: form.email.trim(),
      challenge: form.challenge,
      dns_provider: dns ? form.provider : null,
      ...(dns && form.token.trim() ? { dns_token: form.token.trim() } : {}),
    }).then((s) => {
      onChange(s);
      setForm({ ...formOf(s), token: "" });
      showFlash(`The certificate for ${s.acme.domains.join(", ")} is in place.`, "success");
    }, (err) => setError((err as Error).message)).finally(() => setSending(false));
  };
  const port = state.acme.http_port;
  return (
    <Panel title={title}>
      <Box component="form" onSubmit={submit} noValidate>
        <Stack spacing={2.5}>
          {fixed && (
            <Alert severity="info">
              Set on the command line (--https-domain): change it there and restart the panel.
            </Alert>
          )}
          <TextField
            label="Domain names"
            value={form.domains}
            onChange={set("domains")}
            disabled={fixed || sending}
            helperText="Names that point at this panel, separated by commas, e.g. panel.example.org"
            slotProps={{ htmlInput: { autoCapitalize: "none", spellCheck: false } }}
          />
          <TextField
            label="E-mail address (optional)"
            type="email"
            value={form.email}
            onChange={set("email")}
            disabled={fixed || sending}
            helperText="The CA writes here before a certificate ends, should the panel fail to renew it."
          />
          <FormControl disabled={fixed || sending}>
            <FormLabel id="https-challenge">How the CA checks that the names are yours</FormLabel>
            <RadioGroup
              aria-labelledby="https-challenge"
              value={form.challenge}
              onChange={set("challenge")}
              sx={{ gap: 1, mt: 1 }}
            >
              <Choice
                value="http-01"
                title="HTTP-01"
                text={port === 0
                  ? "The CA connects to the name on port 80 (off here: --acme-http-port is 0)."
                  : `The CA connects to the name on port 80${
                    port === 80 ? "" : `, forwarded to ${port}`
                  }: it must reach this panel from the internet.`}
              />
              <Choice
                value="dns-01"
                title="DNS-01"
                text="A DNS record set through your DNS service: for a panel the internet cannot reach, and for wildcard names."
              />
            </RadioGroup>
          </FormControl>
          {dns && (
            <>
              <TextField
                select
                label="DNS service"
                value={form.provider}
                onChange={set("provider")}
                disabled={fixed || sending}
              >
                {DNS_PROVIDERS.map((p) => <MenuItem key={p} value={p}>{DNS_PROVIDER_LABELS[p]}</MenuItem>)}
              </TextField>
              {!fixed && (
                <TextField
                  label={`${DNS_PROVIDER_LABELS[form.provider]} API token`}
                  type="password"
                  autoComplete="off"
                  value={form.token}
                  onChange={set("token")}
                  disabled={sending}
                  helperText={(state.acme.has_dns_token
                    ? "A token is kept: leave this empty to keep it, or enter a new one. "
                    : "") +
                    (form.provider === "duckdns"
                      ? "DuckDNS shows the token at the top of its page. "
                      : "A Cloudflare API token with Zone > DNS > Edit for the domain's zone. ") +
                    "Kept on the panel, readable only by it, sent only to the DNS service, and never shown again."}
                />
              )}
            </>
          )}
          {!fixed && (
            <>
              <Typography variant="body2" color="text.secondary">
                Getting a certificate means agreeing to the CA's terms
                ({caName(state.acme.directory_url) === "Let's Encrypt"
                  ? (
                    <Link href="https://letsencrypt.org/repository/" target="_blank" rel="noreferrer">
                      Let's Encrypt's Subscriber Agreement
                    </Link>
                  )
                  : "see the CA's site"}). The panel then renews it by itself and alerts admins when it
                cannot.
              </Typography>
              {error && <Alert severity="error" sx={{ overflowWrap: "anywhere" }}>{error}</Alert>}
              {sending && (
                <Alert severity="info" icon={<CircularProgress size={20} />}>
                  Getting the certificate: the CA checks the names, which takes a few seconds{dns
                    ? " (longer with DNS-01)"
                    : ""}.
                </Alert>
              )}
              <Box>
                <Button type="submit" variant="contained" disabled={sending || state.busy}>
                  Get certificate
                </Button>
              </Box>
            </>
          )}
        </Stack>
      </Box>
    </Panel>
  );
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$|\.localhost$/;

/** Where a phone downloads the CA: plain HTTP when the panel listens for it (no warning to click through). */
export function caDownloadUrl(
  state: HttpsState,
  here: { hostname: string; port: string; protocol: string },
): string {
  const names = state.local_ca?.names ?? [];
  // A phone cannot reach "localhost": one of the machine's LAN addresses or names then.
  const lan = names.find((n) => /^\d+\.\d+\.\d+\.\d+$/.test(n) && !n.startsWith("127.")) ??
    names.find((n) => n.includes(":") && n !== "::1") ??
    names.find((n) => !LOOPBACK.test(n) && !n.includes(":") && !/^\d/.test(n));
  const host = LOOPBACK.test(here.hostname) && lan ? (lan.includes(":") ? `[${lan}]` : lan) : here.hostname;
  const path = state.local_ca?.download_path ?? "/ca.crt";
  if (state.acme.http_listening) {
    return `http://${host}${state.acme.http_port === 80 ? "" : `:${state.acme.http_port}`}${path}`;
  }
  const port = state.https_port === 443 ? "" : `:${state.https_port}`;
  return `https://${host}${port}${path}`;
}

const STEPS: { system: string; steps: string[] }[] = [
  {
    system: "Android",
    steps: [
      "Scan the code, or open the address, in Chrome: the file is saved.",
      'Open Settings, Security and privacy, More security settings, Encryption and credentials, Install a certificate, CA certificate (the names differ between makers: search the settings for "CA certificate").',
      "Confirm, and choose factorio-panel-ca.crt. Chrome trusts it at once; most other apps ignore certificates you add.",
    ],
  },
  {
    system: "iPhone and iPad",
    steps: [
      "Scan the code with the camera, or open the address in Safari, and allow the download of the configuration profile.",
      "Open Settings, General, VPN and Device Management, choose the profile Factorio Panel local CA, and Install.",
      "Open Settings, General, About, Certificate Trust Settings, and switch on full trust for it.",
    ],
  },
  {
    system: "Windows",
    steps: [
      "Download the file and open it; choose Install Certificate.",
      "Choose Current User, then Place all certificates in the following store, Browse, Trusted Root Certification Authorities, and Finish.",
      "Restart the browser. Firefox keeps its own list: Settings, Privacy and Security, View Certificates, Authorities, Import.",
    ],
  },
  {
    system: "macOS",
    steps: [
      "Download the file and open it: Keychain Access adds it to the login keychain.",
      "Open it there, unfold Trust, and set When using this certificate to Always Trust; close the window and confirm with your password.",
    ],
  },
  {
    system: "Linux",
    steps: [
      "Debian and Ubuntu: sudo cp factorio-panel-ca.crt /usr/local/share/ca-certificates/ && sudo update-ca-certificates (Fedora: copy it to /etc/pki/ca-trust/source/anchors/ and run sudo update-ca-trust).",
      "Chrome and Firefox keep their own lists: in Chrome, Settings, Privacy and security, Security, Manage certificates, Authorities, Import, and tick trust for identifying websites; in Firefox, Settings, Privacy and Security, View Certificates, Authorities, Import.",
    ],
  },
];

function TrustPanel({ state }: { state: HttpsState }) {
  const ca = state.local_ca!;
  const url = caDownloadUrl(state, location);
  return (
    <Panel title="Trust the panel's CA on a device">
      <Stack spacing={2.5}>
        <Typography>
          Each device that opens the panel trusts its certificate authority (CA) once. Trusting it lets
          whoever holds the CA's key, which stays on this panel's machine, readable only by the panel, vouch
          to that device for names on your network (.lan, .local, .internal, home.arpa, localhost, this
          machine's name) and private addresses, and nothing else: it cannot stand in for a public site.
          Remove it from the device when you no longer use the panel.
        </Typography>
        <Box sx={{ display: "flex", gap: 3, flexWrap: "wrap", alignItems: "center" }}>
          <QrCode text={url} label={`QR code of ${url}`} size={180} />
          <Stack spacing={1} sx={{ minWidth: 0, flex: "1 1 240px" }}>
            <Typography sx={{ overflowWrap: "anywhere" }}>
              Scan it on the phone, or open <Link href={url}>{url}</Link>
            </Typography>
            <Box>
              <Button
                variant="outlined"
                href={url}
                startIcon={<DownloadIcon />}
                download="factorio-panel-ca.crt"
              >
                Download the CA certificate
              </Button>
            </Box>
            <Typography variant="body2" color="text.secondary">
              {ca.subject}, valid until {when(ca.not_after)}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: "anywhere" }}>
              Its SHA-256 fingerprint, to compare with what the device shows:{" "}
              <Box component="span" sx={{ fontFamily: "monospace" }}>{ca.fingerprint_sha256}</Box>
            </Typography>
          </Stack>
        </Box>
        <Box>
          {STEPS.map((s) => (
            <Accordion key={s.system} disableGutters>
              <AccordionSummary expandIcon={<ExpandMoreIcon />}>
                <Typography component="h3" sx={{ fontWeight: 600 }}>{s.system}</Typography>
              </AccordionSummary>
              <AccordionDetails>
                <Box component="ol" sx={{ m: 0, pl: 3, display: "grid", gap: 1 }}>
                  {s.steps.map((step) => (
                    <Typography component="li" key={step} sx={{ overflowWrap: "anywhere" }}>
                      {step}
                    </Typography>
                  ))}
                </Box>
              </AccordionDetails>
            </Accordion>
          ))}
        </Box>
      </Stack>
    </Panel>
  );
}

export default function Https() {
  const isAdmin = useCan("admin");
  const [state, setState] = useState<HttpsState | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (!isAdmin) return;
    httpsApi.state().then(setState, (e) => setFailed((e as Error).message));
  }, [isAdmin]);
  if (!isAdmin) {
    return (
      <Page title="HTTPS">
        <Alert severity="info">Only admins can set up HTTPS.</Alert>
      </Page>
    );
  }
  return (
    <Page title="HTTPS">
      <Box sx={{ display: "grid", gap: 2.5, maxWidth: 900 }}>
        <Typography>
          Phones install the panel as an app, and get its alerts, only over HTTPS with a certificate they
          trust.
        </Typography>
        {failed && <Alert severity="error">{failed}</Alert>}
        {!state && !failed && <CircularProgress aria-label="Loading" />}
        {state && (
          <>
            <CertificatePanel state={state} onChange={setState} />
            {state.local_ca && <TrustPanel state={state} />}
            <AcmePanel key={state.acme.domains.join(",")} state={state} onChange={setState} />
          </>
        )}
      </Box>
    </Page>
  );
}
