// The activity log for admins: who did what (in words, shared/activitywords.ts), when, from where, with
// which result, on which server (once there are several); filters, pages of 50 newest first, and CSV.

import { type FormEvent, memo, useCallback, useEffect, useMemo, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Chip,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
  useMediaQuery,
} from "@mui/material";
import { useTheme } from "@mui/material/styles";
import { useSnapshot } from "valtio";
import DownloadIcon from "@mui/icons-material/Download";
import NavigateBeforeIcon from "@mui/icons-material/NavigateBefore";
import NavigateNextIcon from "@mui/icons-material/NavigateNext";
import { Page, Panel } from "../../components/Page.tsx";
import { accessApi, type ActivityFilter, activityQuery } from "../../api/access.ts";
import { useCan } from "../../state/access.ts";
import type { ActivityEntry } from "../../../../shared/access.ts";
import { useProgressiveCount } from "../../components/useProgressive.ts";
import { activityWords } from "../../../../shared/activitywords.ts";
import { serverList, several } from "../../state/servers.ts";

const EMPTY: ActivityFilter = { user: "", action: "", from: "", to: "", server: "" };
/** Records per page; one more is asked for, to know whether there are older ones. */
export const PAGE = 50;
/** The CSV export takes the filter's records up to the API's most. */
const CSV_LIMIT = 10_000;

function when(iso: string): string {
  return iso.replace("T", " ").slice(0, 19) + " UTC";
}

/**
 * The name of a record's server for the list; null while the panel has one server (nothing to tell
 * apart). "—" for a panel-wide record; a server no longer listed (deleted) by its id.
 */
type ServerNameOf = ((id: number | null) => string) | null;

function Result({ status }: { status: number }) {
  const ok = status < 400;
  return (
    <Chip
      size="small"
      label={status}
      color={ok ? "success" : status === 401 || status === 403 ? "warning" : "error"}
      variant="outlined"
    />
  );
}

/** A short name for a browser from its user agent, for the narrow list. */
export function deviceOf(ua: string): string {
  if (ua === "") return "unknown device";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
    ? "Firefox"
    : /Chrome\//.test(ua)
    ? "Chrome"
    : /Safari\//.test(ua)
    ? "Safari"
    : ua.split(/[\s/]/)[0];
  const os = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
    ? "iOS"
    : /Windows/.test(ua)
    ? "Windows"
    : /Mac OS X/.test(ua)
    ? "macOS"
    : /Linux/.test(ua)
    ? "Linux"
    : "";
  return os ? `${browser} on ${os}` : browser;
}

/** What happened, in words, with what the words leave out and the raw request in small print. */
function What({ e }: { e: ActivityEntry }) {
  const { text, extra } = activityWords(e);
  return (
    <>
      <Typography component="span" sx={{ display: "block", fontWeight: 600, overflowWrap: "anywhere" }}>
        {text}
      </Typography>
      {extra && (
        <Typography component="span" variant="body2" sx={{ display: "block", overflowWrap: "anywhere" }}>
          {extra}
        </Typography>
      )}
      <Typography
        component="span"
        variant="caption"
        color="text.secondary"
        sx={{ display: "block", fontFamily: "monospace", overflowWrap: "anywhere" }}
      >
        {e.action}
      </Typography>
    </>
  );
}

/** One entry in the narrow list (a phone). */
const EntryItem = memo(function EntryItem({ e, serverName }: { e: ActivityEntry; serverName: ServerNameOf }) {
  return (
    <Box component="li" sx={{ borderBottom: 1, borderColor: "divider", pb: 1 }}>
      <Box sx={{ display: "flex", gap: 1, alignItems: "flex-start", justifyContent: "space-between" }}>
        <Box sx={{ minWidth: 0 }}>
          <What e={e} />
        </Box>
        <Result status={e.status} />
      </Box>
      {serverName && (
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: "anywhere" }}>
          Server: {serverName(e.server)}
        </Typography>
      )}
      <Typography variant="body2" color="text.secondary">
        {e.username || "-"}
        {e.via.startsWith("token") ? ` (${e.via})` : ""} · {when(e.at)}
      </Typography>
      <Typography variant="body2" color="text.secondary">{e.address} · {deviceOf(e.user_agent)}</Typography>
    </Box>
  );
});

/** One entry in the table (a wide screen). */
const EntryRow = memo(function EntryRow({ e, serverName }: { e: ActivityEntry; serverName: ServerNameOf }) {
  return (
    <TableRow>
      <TableCell sx={{ whiteSpace: "nowrap" }}>{when(e.at)}</TableCell>
      {serverName && <TableCell sx={{ overflowWrap: "anywhere" }}>{serverName(e.server)}</TableCell>}
      <TableCell>
        {e.username || "-"}
        {e.via.startsWith("token")
          ? (
            <Typography variant="caption" color="text.secondary" sx={{ display: "block" }}>
              {e.via}
            </Typography>
          )
          : null}
      </TableCell>
      <TableCell>
        <What e={e} />
      </TableCell>
      <TableCell>
        <Result status={e.status} />
      </TableCell>
      <TableCell>
        {e.address}
        <Typography variant="caption" color="text.secondary" sx={{ display: "block" }} title={e.user_agent}>
          {deviceOf(e.user_agent)}
        </Typography>
      </TableCell>
    </TableRow>
  );
});

/**
 * The entries of one page: the first rows with the page, the rest a batch after each painted frame
 * (useProgressiveCount). Memoised: typing in the filter does not render
 * them again. `load` tells one load from the next, so a new list starts again with its first rows.
 */
const Entries = memo(function Entries(
  { entries, load, serverName }: { entries: ActivityEntry[]; load: number; serverName: ServerNameOf },
) {
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up("md"), { noSsr: true });
  const shown = entries.slice(0, useProgressiveCount(entries.length, String(load)));
  if (entries.length === 0) return <Typography color="text.secondary">Nothing recorded matches.</Typography>;
  if (!wide) {
    return (
      <Stack spacing={1} component="ul" sx={{ listStyle: "none", p: 0, m: 0 }} aria-label="Activity">
        {shown.map((e) => <EntryItem key={e.id} e={e} serverName={serverName} />)}
      </Stack>
    );
  }
  return (
    <TableContainer>
      <Table size="small" aria-label="Activity">
        <TableHead>
          <TableRow>
            <TableCell>When</TableCell>
            {serverName && <TableCell>Server</TableCell>}
            <TableCell>User</TableCell>
            <TableCell>What</TableCell>
            <TableCell>Result</TableCell>
            <TableCell>From</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {shown.map((e) => <EntryRow key={e.id} e={e} serverName={serverName} />)}
        </TableBody>
      </Table>
    </TableContainer>
  );
});

export default function Activity() {
  const isAdmin = useCan("admin");
  const [filter, setFilter] = useState<ActivityFilter>(EMPTY);
  const [applied, setApplied] = useState<ActivityFilter>(EMPTY);
  // Paging newest first: the id each older page starts below, one per page turned.
  const [cursors, setCursors] = useState<number[]>([]);
  const [loaded, setLoaded] = useState<{ entries: ActivityEntry[]; n: number } | null>(null);
  // The servers as the layout last read them (GET /api/servers); an admin sees them all.
  const { list } = useSnapshot(serverList);
  const servers = several(list) ? list! : null;
  const serverName = useMemo<ServerNameOf>(
    () =>
      servers &&
      ((id) => id === null ? "—" : servers.find((s) => s.id === id)?.name ?? `Server ${id}`),
    [servers],
  );

  const before = cursors.at(-1);
  const load = useCallback(() => {
    const got = (entries: ActivityEntry[]) => setLoaded((l) => ({ entries, n: (l?.n ?? 0) + 1 }));
    if (isAdmin) accessApi.activity({ ...applied, limit: PAGE + 1, before }).then(got, () => got([]));
  }, [applied, before, isAdmin]);
  useEffect(load, [load]);

  if (!isAdmin) {
    return (
      <Page title="Activity">
        <Alert severity="info">Only admins can read the activity log.</Alert>
      </Page>
    );
  }

  const set = (k: keyof ActivityFilter) => (e: { target: { value: string } }) =>
    setFilter({ ...filter, [k]: e.target.value });
  function submit(e: FormEvent) {
    e.preventDefault();
    setApplied({ ...filter });
    setCursors([]);
  }
  const page = loaded?.entries.slice(0, PAGE) ?? [];
  const older = (loaded?.entries.length ?? 0) > PAGE;

  return (
    <Page
      title="Activity"
      actions={
        <Button
          component="a"
          href={activityQuery({ ...applied, limit: CSV_LIMIT }, true)}
          download="activity.csv"
          variant="outlined"
          startIcon={<DownloadIcon />}
        >
          Export CSV
        </Button>
      }
    >
      <Panel title="Filter">
        <Box
          component="form"
          aria-label="Filter activity"
          onSubmit={submit}
          sx={{
            display: "grid",
            gap: 2,
            gridTemplateColumns: { xs: "1fr 1fr", md: `repeat(${servers ? 5 : 4}, 1fr) auto` },
            alignItems: "start",
          }}
        >
          <TextField
            label="User"
            value={filter.user}
            onChange={set("user")}
            slotProps={{ htmlInput: { autoCapitalize: "off" } }}
          />
          <TextField
            label="Action"
            value={filter.action}
            onChange={set("action")}
            placeholder="saves, console, login"
          />
          <TextField
            label="From"
            type="date"
            value={filter.from}
            onChange={set("from")}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <TextField
            label="To"
            type="date"
            value={filter.to}
            onChange={set("to")}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          {servers && (
            <TextField
              label="Server"
              select
              value={filter.server}
              onChange={set("server")}
              slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
              sx={{ gridColumn: { xs: "1 / -1", md: "auto" } }}
            >
              <MenuItem value="">All</MenuItem>
              {servers.map((s) => <MenuItem key={s.id} value={String(s.id)}>{s.name}</MenuItem>)}
            </TextField>
          )}
          <Button type="submit" sx={{ minHeight: 56, gridColumn: { xs: "1 / -1", md: "auto" } }}>
            Apply
          </Button>
        </Box>
      </Panel>
      <Panel title="Recorded">
        {loaded === null
          ? <Typography color="text.secondary">Loading...</Typography>
          : <Entries entries={page} load={loaded.n} serverName={serverName} />}
        <Box
          component="nav"
          aria-label="Pages"
          sx={{ display: "flex", alignItems: "center", gap: 1, mt: 2, flexWrap: "wrap" }}
        >
          <Button
            variant="outlined"
            startIcon={<NavigateBeforeIcon />}
            disabled={cursors.length === 0}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Newer
          </Button>
          <Typography color="text.secondary" sx={{ flexGrow: 1, textAlign: "center" }}>
            {page.length === 0
              ? ""
              : `Page ${cursors.length + 1} · records ${cursors.length * PAGE + 1}-${
                cursors.length * PAGE + page.length
              }`}
          </Typography>
          <Button
            variant="outlined"
            endIcon={<NavigateNextIcon />}
            disabled={!older}
            onClick={() => setCursors([...cursors, page.at(-1)!.id])}
          >
            Older
          </Button>
        </Box>
      </Panel>
    </Page>
  );
}
