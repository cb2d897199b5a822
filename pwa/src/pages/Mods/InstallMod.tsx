import { type FormEvent, useCallback, useEffect, useState } from "react";
import { Box, Button, CircularProgress, Link, Stack, TextField, Typography } from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import LogoutIcon from "@mui/icons-material/Logout";
import OpenInNewIcon from "@mui/icons-material/OpenInNew";
import type { InstallResult, PortalListEntry, PortalModInfo, PortalRelease } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { type FieldErrors, validateLogin } from "../../../../shared/validation.ts";
import { modsApi } from "../../api/mods.ts";
import { showFlash } from "../../state/flash.ts";
import { ModSearch } from "./ModSearch.tsx";
import { cachedPortalSearcher, portalSearcher, type Searcher } from "./portalSearch.ts";
import { SelectVersion } from "./SelectVersion.tsx";
import { shortVersion } from "./ModsTable.tsx";

export const MOD_PORTAL_LINK = "https://mods.factorio.com";

type Field = "username" | "password" | "token";

/** Log in to the mod portal with username and password, or with a token from factorio.com/profile. */
function PortalLogin({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [withToken, setWithToken] = useState(false);
  const [v, setV] = useState({ username: "", password: "", token: "" });
  const [errors, setErrors] = useState<FieldErrors<Field>>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found: FieldErrors<Field> = withToken
      ? {
        ...(v.username.trim() ? {} : { username: MSG.usernameRequired }),
        ...(v.token.trim() ? {} : { token: PANEL_MSG.tokenRequired }),
      }
      : validateLogin(v);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await modsApi.portal.login(
        withToken
          ? { username: v.username.trim(), token: v.token.trim() }
          : { username: v.username.trim(), password: v.password },
      );
      setV({ username: "", password: "", token: "" });
      onLoggedIn();
    } catch {
      // the client flashed the answer: for a wrong password the spec's "Given username or email ..."
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack
      component="form"
      spacing={2}
      onSubmit={submit}
      noValidate
      aria-label="Mod portal login"
      sx={{ maxWidth: 420 }}
    >
      <Typography color="text.secondary" variant="body2">
        Log in with your factorio.com account to install mods from the mod portal. The panel keeps only the
        token the login gives, readable only by the panel, and sends it nowhere but the mod portal.
      </Typography>
      <TextField
        label="Username"
        name="username"
        autoComplete="username"
        value={v.username}
        onChange={(e) => setV({ ...v, username: e.target.value })}
        error={!!errors.username}
        helperText={errors.username ??
          (withToken ? undefined : "Your factorio.com username or e-mail address")}
      />
      {withToken
        ? (
          <TextField
            label="Token"
            name="token"
            autoComplete="off"
            value={v.token}
            onChange={(e) => setV({ ...v, token: e.target.value })}
            error={!!errors.token}
            helperText={errors.token ?? "Shown on factorio.com/profile"}
          />
        )
        : (
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            value={v.password}
            onChange={(e) => setV({ ...v, password: e.target.value })}
            error={!!errors.password}
            helperText={errors.password}
          />
        )}
      <Box sx={{ display: "flex", gap: 2, alignItems: "center", flexWrap: "wrap" }}>
        <Button type="submit" disabled={busy}>Login</Button>
        <Link
          component="button"
          type="button"
          sx={{ minHeight: { xs: 44, md: "auto" } }}
          onClick={() => {
            setWithToken(!withToken);
            setErrors({});
          }}
        >
          {withToken ? "Use a password instead" : "Paste a token instead"}
        </Link>
      </Box>
    </Stack>
  );
}

/** Search, pick, choose a version, install; the portal list loads once and stays for the session. */
function PortalInstall(
  props: {
    onInstall: (r: PortalRelease, info: PortalModInfo) => Promise<void>;
    onLoggedOut: () => void;
    disabled: boolean;
  },
) {
  const [searcher, setSearcher] = useState<Searcher | null>(null);
  const [picked, setPicked] = useState<PortalListEntry | null>(null);
  const [choosing, setChoosing] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    (cachedPortalSearcher() ?? portalSearcher()).then((s) => live && setSearcher(s), () => {});
    return () => {
      live = false;
    };
  }, []);
  const close = useCallback(() => setChoosing(null), []);

  return (
    <Stack spacing={2}>
      {searcher
        ? <ModSearch searcher={searcher} value={picked} onPick={setPicked} />
        : (
          <Box sx={{ display: "flex", gap: 1.5, alignItems: "center" }}>
            <CircularProgress size={20} aria-label="Loading the mod list" />
            <Typography color="text.secondary">Loading the list of mods from the mod portal…</Typography>
          </Box>
        )}
      <Box sx={{ display: "flex", gap: 1.5, flexWrap: "wrap", alignItems: "center" }}>
        <Button
          startIcon={<DownloadIcon />}
          disabled={!picked || props.disabled}
          onClick={() => picked && setChoosing(picked.name)}
        >
          Install
        </Button>
        <Button
          color="secondary"
          startIcon={<LogoutIcon />}
          onClick={() => void modsApi.portal.logout().then(props.onLoggedOut, () => {})}
        >
          Logout
        </Button>
        <Link
          href={MOD_PORTAL_LINK}
          target="_blank"
          rel="noopener noreferrer"
          sx={{ display: "inline-flex", alignItems: "center", gap: 0.5 }}
        >
          Factorio mod portal <OpenInNewIcon fontSize="inherit" />
        </Link>
      </Box>
      <SelectVersion
        mod={choosing}
        onClose={close}
        onInstall={(r, info) => {
          setChoosing(null);
          void props.onInstall(r, info);
        }}
      />
    </Stack>
  );
}

// The last answer, so the tab opens at once while the check runs again.
let lastLoginStatus: boolean | null = null;

/** The 'Install Mod' tab: the portal's login status is checked each time the tab opens. */
export function InstallMod(
  props: {
    run: <T>(label: string, fn: () => Promise<T>) => Promise<T | undefined>;
    onChanged: () => void;
    disabled: boolean;
  },
) {
  const [loggedIn, setLoggedInState] = useState<boolean | null>(lastLoginStatus);
  const setLoggedIn = useCallback((v: boolean) => {
    lastLoginStatus = v;
    setLoggedInState(v);
  }, []);
  useEffect(() => {
    modsApi.portal.status().then(setLoggedIn, () => setLoggedIn(false));
  }, [setLoggedIn]);

  async function install(r: PortalRelease, info: PortalModInfo) {
    const result: InstallResult | undefined = await props.run(
      `Installing ${info.title} ${shortVersion(r.version)}`,
      () =>
        modsApi.portal.install({ modName: info.name, downloadUrl: r.download_url, fileName: r.file_name }),
    );
    if (!result) return;
    props.onChanged();
    const added = result.dependencies_added;
    showFlash(
      added.length
        ? PANEL_MSG.modInstalledWithDependencies(info.title, added)
        : PANEL_MSG.modInstalled(info.title),
      "success",
    );
    if (result.dependencies_missing.length > 0) {
      showFlash(
        `Not installed, but ${info.name} needs them: ${
          result.dependencies_missing.map((d) => `${d.name} (${d.reason})`).join("; ")
        }.`,
        "error",
      );
    }
  }

  if (loggedIn === null) return <CircularProgress size={24} aria-label="Checking the mod portal login" />;
  if (!loggedIn) return <PortalLogin onLoggedIn={() => setLoggedIn(true)} />;
  return (
    <PortalInstall
      onInstall={install}
      onLoggedOut={() => setLoggedIn(false)}
      disabled={props.disabled}
    />
  );
}
