// The players' story: everyone the panel has seen in the game's log (first and last seen, play time,
// sessions), sortable and searchable, and the chat log with search.

import { useEffect, useMemo, useState } from "react";
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
  TableSortLabel,
  TextField,
  Typography,
} from "@mui/material";
import SearchIcon from "@mui/icons-material/Search";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { playerHistoryApi } from "../../api/alerts.ts";
import { connection } from "../../state/connection.ts";
import type { ChatLine, PlayerHistoryRow } from "../../../../shared/alerts.ts";
import { factorio } from "../../theme.ts";

type Column = "name" | "first_seen" | "last_seen" | "play_time_s" | "sessions";

const COLUMNS: { key: Column; label: string; numeric?: boolean }[] = [
  { key: "name", label: "Player" },
  { key: "last_seen", label: "Last seen" },
  { key: "first_seen", label: "First seen" },
  { key: "play_time_s", label: "Play time", numeric: true },
  { key: "sessions", label: "Sessions", numeric: true },
];

function utc(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

/** "3 h 05 min", "12 min", "40 s". */
export function playTime(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

function SearchField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <TextField
      size="small"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      sx={{ mb: 1.5, width: { xs: "100%", sm: 320 } }}
      slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchIcon /></InputAdornment> } }}
    />
  );
}

function HistoryTable() {
  const { online } = useSnapshot(connection);
  const [rows, setRows] = useState<PlayerHistoryRow[] | null>(null);
  const [q, setQ] = useState("");
  const [sort, setSort] = useState<{ by: Column; desc: boolean }>({ by: "last_seen", desc: true });
  useEffect(() => {
    if (online) playerHistoryApi.history().then(setRows, () => {});
  }, [online]);

  const shown = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const list = (rows ?? []).filter((r) => r.name.toLowerCase().includes(needle));
    const dir = sort.desc ? -1 : 1;
    return list.sort((a, b) => {
      const x = a[sort.by];
      const y = b[sort.by];
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return c * dir || a.name.localeCompare(b.name);
    });
  }, [rows, q, sort]);

  return (
    <Panel title="Players history">
      <SearchField label="Search players" value={q} onChange={setQ} />
      {rows === null
        ? <Typography color="text.secondary">{online ? "Loading..." : "The history is shown when the panel can be reached."}</Typography>
        : rows.length === 0
        ? <Typography color="text.secondary">No player has joined since the panel started following the game.</Typography>
        : (
          <TableContainer sx={{ overflowX: "auto" }}>
            <Table size="small" aria-label="Players history">
              <TableHead>
                <TableRow>
                  {COLUMNS.map((c) => (
                    <TableCell key={c.key} align={c.numeric ? "right" : "left"} sortDirection={sort.by === c.key ? (sort.desc ? "desc" : "asc") : false}>
                      <TableSortLabel
                        active={sort.by === c.key}
                        direction={sort.by === c.key && sort.desc ? "desc" : "asc"}
                        onClick={() => setSort((s) => ({ by: c.key, desc: s.by === c.key ? !s.desc : c.key !== "name" }))}
                        sx={{ minHeight: 44 }}
                      >
                        {c.label}
                      </TableSortLabel>
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {shown.map((r) => (
                  <TableRow key={r.name}>
                    <TableCell sx={{ overflowWrap: "anywhere" }}>
                      {r.name} {r.online && <Chip size="small" color="success" label="online" sx={{ ml: 0.5 }} />}
                    </TableCell>
                    <TableCell sx={{ whiteSpace: "nowrap" }}>{r.online ? "now" : utc(r.last_seen)}</TableCell>
                    <TableCell sx={{ whiteSpace: "nowrap" }}>{utc(r.first_seen)}</TableCell>
                    <TableCell align="right" sx={{ whiteSpace: "nowrap" }}>{playTime(r.play_time_s)}</TableCell>
                    <TableCell align="right">{r.sessions}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
    </Panel>
  );
}

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
      <SearchField label="Search chat" value={q} onChange={setQ} />
      {lines === null
        ? <Typography color="text.secondary">Loading...</Typography>
        : lines.length === 0
        ? <Typography color="text.secondary">{q ? "Nothing said matches." : "Nothing said yet."}</Typography>
        : (
          <Stack
            component="ol"
            aria-label="Chat lines"
            spacing={0.5}
            sx={{ m: 0, p: 1.5, listStyle: "none", bgcolor: factorio.inset, borderRadius: 1, maxHeight: 420, overflowY: "auto" }}
          >
            {lines.map((l, i) => (
              <Box component="li" key={`${l.at}-${i}`} sx={{ fontFamily: "monospace", fontSize: 14, overflowWrap: "anywhere" }}>
                <Box component="span" sx={{ color: "text.secondary" }}>{utc(l.at)} </Box>
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
