// The players' story: everyone the panel has seen in the game's log (first and last seen, play time,
// sessions), sortable and searchable, and the chat log with search.

import { memo, startTransition, useEffect, useMemo, useState } from "react";
import {
  Box,
  Chip,
  InputAdornment,
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
import SearchIcon from "@mui/icons-material/Search";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { playerHistoryApi } from "../../api/alerts.ts";
import { connection } from "../../state/connection.ts";
import type { ChatLine, PlayerHistoryRow } from "../../../../shared/alerts.ts";
import { factorio } from "../../theme.ts";
import { sameData, useProgressiveCount } from "../../components/useProgressive.ts";
import { type Sort, type SortColumn, SortHeadCell, SortPicker } from "../../components/Sorting.tsx";

type Column = "name" | "first_seen" | "last_seen" | "play_time_s" | "sessions";

// Names A-Z first; times and counts newest or largest first.
const COLUMNS: SortColumn<Column>[] = [
  { key: "name", label: "Player" },
  { key: "last_seen", label: "Last seen", firstDesc: true },
  { key: "first_seen", label: "First seen", firstDesc: true },
  { key: "play_time_s", label: "Play time", numeric: true, firstDesc: true },
  { key: "sessions", label: "Sessions", numeric: true, firstDesc: true },
];

function utc(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

/** A time in the players' list, saying its zone. */
function seen(iso: string): string {
  return `${utc(iso)} UTC`;
}

/** "3 h 05 min", "12 min", "40 s". */
export function playTime(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/**
 * A search box that keeps its own text: a key renders the field alone at once, and the page's list
 * follows as a transition, which the next key interrupts.
 */
function SearchField({ label, onChange }: { label: string; onChange: (v: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <TextField
      size="small"
      label={label}
      value={value}
      onChange={(e) => {
        const v = e.target.value;
        setValue(v);
        startTransition(() => onChange(v));
      }}
      sx={{ mb: 1.5, width: { xs: "100%", sm: 320 } }}
      slotProps={{
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

function HistoryTable() {
  const { online } = useSnapshot(connection);
  const [rows, setRows] = useState<PlayerHistoryRow[] | null>(null);
  const [q, setQ] = useState("");
  const [sort, setSort] = useState<Sort<Column>>({ by: "last_seen", desc: true });
  // Below MUI's "sm" breakpoint five columns do not fit (Play time and Sessions were off-screen at 390 px):
  // two columns, each holding its values on lines of their own, and the order chosen above the table.
  const narrow = useMediaQuery("(max-width: 599.95px)", { noSsr: true });
  useEffect(() => {
    if (online) playerHistoryApi.history().then(setRows, () => {});
  }, [online]);

  // A public server's history holds thousands of players. The list is sorted when the rows or the order
  // change, not per key; the field shows each key at once (SearchField), and the list follows in a
  // render the next key interrupts, its first rows first (2,000 players on a phone: bench note in
  // docs/performance.md).
  const sorted = useMemo(() => {
    const dir = sort.desc ? -1 : 1;
    return [...(rows ?? [])].sort((a, b) => {
      const x = a[sort.by];
      const y = b[sort.by];
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return c * dir || a.name.localeCompare(b.name);
    });
  }, [rows, sort]);
  const query = q.trim().toLowerCase();
  const shown = useMemo(() => query ? sorted.filter((r) => r.name.toLowerCase().includes(query)) : sorted, [
    sorted,
    query,
  ]);
  const count = useProgressiveCount(shown.length, query);
  const rowsShown = useMemo(() => shown.slice(0, count), [shown, count]);

  return (
    <Panel title="Players history">
      <SearchField label="Search players" onChange={setQ} />
      {rows === null
        ? (
          <Typography color="text.secondary">
            {online ? "Loading..." : "The history is shown when the panel can be reached."}
          </Typography>
        )
        : rows.length === 0
        ? (
          <Typography color="text.secondary">
            No player has joined since the panel started following the game.
          </Typography>
        )
        : (
          <>
            {narrow && <SortPicker columns={COLUMNS} sort={sort} onSort={setSort} />}
            <TableContainer sx={{ overflowX: "auto" }}>
              <Table size="small" aria-label="Players history">
                <TableHead>
                  {narrow
                    ? (
                      <TableRow>
                        <TableCell sx={compactCell}>Player</TableCell>
                        <TableCell sx={compactCell} align="right">Play time</TableCell>
                      </TableRow>
                    )
                    : (
                      <TableRow>
                        {COLUMNS.map((c) => (
                          <SortHeadCell key={c.key} column={c} sort={sort} onSort={setSort} />
                        ))}
                      </TableRow>
                    )}
                </TableHead>
                <HistoryBody rows={rowsShown} compact={narrow} />
              </Table>
            </TableContainer>
          </>
        )}
    </Panel>
  );
}

const compactCell = { px: 1, verticalAlign: "top" } as const;

/** The rows; rendered again only when the rows shown change (not for the header or the connection state). */
const HistoryBody = memo(
  function HistoryBody({ rows, compact }: { rows: PlayerHistoryRow[]; compact: boolean }) {
    return (
      <TableBody>
        {rows.map((r) => compact ? <CompactRow key={r.name} r={r} /> : <HistoryRow key={r.name} r={r} />)}
      </TableBody>
    );
  },
);

/** Phones: the name with both times under it; the play time with the sessions under it. */
const CompactRow = memo(function CompactRow({ r }: { r: PlayerHistoryRow }) {
  return (
    <TableRow>
      <TableCell sx={{ ...compactCell, overflowWrap: "anywhere" }}>
        <Box sx={{ fontWeight: 700 }}>
          {r.name} {r.online && <Chip size="small" color="success" label="online" sx={{ ml: 0.5 }} />}
        </Box>
        <Typography variant="body2" color="text.secondary">
          Last seen {r.online ? "now" : seen(r.last_seen)}
        </Typography>
        <Typography variant="body2" color="text.secondary">First seen {seen(r.first_seen)}</Typography>
      </TableCell>
      <TableCell sx={{ ...compactCell, whiteSpace: "nowrap" }} align="right">
        <Box>{playTime(r.play_time_s)}</Box>
        <Typography variant="body2" color="text.secondary">
          {r.sessions === 1 ? "1 session" : `${r.sessions} sessions`}
        </Typography>
      </TableCell>
    </TableRow>
  );
}, (a, b) => sameData(a.r, b.r));

/** One player; rendered again only when its own data changed (see useProgressiveCount for long lists). */
const HistoryRow = memo(function HistoryRow({ r }: { r: PlayerHistoryRow }) {
  return (
    <TableRow>
      <TableCell sx={{ overflowWrap: "anywhere" }}>
        {r.name} {r.online && <Chip size="small" color="success" label="online" sx={{ ml: 0.5 }} />}
      </TableCell>
      <TableCell sx={{ whiteSpace: "nowrap" }}>{r.online ? "now" : seen(r.last_seen)}</TableCell>
      <TableCell sx={{ whiteSpace: "nowrap" }}>{seen(r.first_seen)}</TableCell>
      <TableCell align="right" sx={{ whiteSpace: "nowrap" }}>{playTime(r.play_time_s)}</TableCell>
      <TableCell align="right">{r.sessions}</TableCell>
    </TableRow>
  );
}, (a, b) => sameData(a.r, b.r));

function ChatLog() {
  const { online } = useSnapshot(connection);
  const [q, setQ] = useState("");
  const [lines, setLines] = useState<ChatLine[] | null>(null);
  useEffect(() => {
    if (!online) return;
    // Searching as one types, a moment after the last key.
    const timer = setTimeout(() => playerHistoryApi.chat(q.trim()).then(setLines, () => {}), 250);
    return () => clearTimeout(timer);
  }, [q, online]);
  return (
    <Panel title="Chat log">
      <SearchField label="Search chat" onChange={setQ} />
      {lines === null
        ? <Typography color="text.secondary">Loading...</Typography>
        : lines.length === 0
        ? <Typography color="text.secondary">{q ? "Nothing said matches." : "Nothing said yet."}</Typography>
        : (
          <Stack
            component="ol"
            aria-label="Chat lines"
            spacing={0.5}
            sx={{
              m: 0,
              p: 1.5,
              listStyle: "none",
              bgcolor: factorio.inset,
              borderRadius: 1,
              maxHeight: 420,
              overflowY: "auto",
            }}
          >
            {lines.map((l, i) => (
              <Box
                component="li"
                key={`${l.at}-${i}`}
                sx={{ fontFamily: "monospace", fontSize: 14, overflowWrap: "anywhere" }}
              >
                <Box component="span" sx={{ color: "text.secondary" }}>{utc(l.at)}</Box>
                <Box component="span" sx={{ fontWeight: 700 }}>{l.name}:</Box> {l.message}
              </Box>
            ))}
          </Stack>
        )}
    </Panel>
  );
}

export default function PlayerHistory() {
  return (
    <Page title="Player history">
      <HistoryTable />
      <ChatLog />
    </Page>
  );
}
