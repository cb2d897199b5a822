// The game's log (factorio-current.log): its last lines, then every new line as the game writes it (the
// "logs" room of /ws), with a search, a filter by level and a download of the whole log from the server.

import { useDeferredValue, useEffect, useMemo, useState } from "react";
import {
  Box,
  Button,
  Checkbox,
  CircularProgress,
  FormControlLabel,
  FormGroup,
  TextField,
  Typography,
} from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { serverApi } from "../../api/server.ts";
import { logBoxSx } from "../../components/logStyle.ts";
import { LogLine, NewestLinesButton, useFollowBottom } from "../../components/LiveLog.tsx";
import { socket } from "../../state/socket.ts";
import { connection } from "../../state/connection.ts";
import { levelOf, LOG_LEVELS, type LogLevel } from "./levels.ts";

/** Lines the page keeps; older ones leave as new ones come (Download has them all). */
export const LOGS_MAX_LINES = 5000;

interface Line {
  id: number;
  text: string;
  /** For the search, lowercased once. */
  lower: string;
  level: LogLevel;
}

/**
 * The log's last lines, then the lines of the "logs" room as they come. The room is joined first and the
 * tail read after it, so no line falls between the two; a line that came while the tail was read and is
 * in it already is dropped. After a reconnect the tail is read again: lines may have passed meanwhile.
 */
function useLiveLog(): Line[] | null {
  const [lines, setLines] = useState<Line[] | null>(null);
  useEffect(() => {
    let id = 0;
    let level: LogLevel = "Info";
    let reading = 0;
    /** Lines of the room that came while the tail was being read; null once it was. */
    let early: string[] | null = [];
    let pending: string[] = [];
    const toLines = (texts: string[]) =>
      texts.map((text): Line => {
        level = levelOf(text, level);
        return { id: id++, text, lower: text.toLowerCase(), level };
      });
    const keep = (list: Line[]) => (list.length > LOGS_MAX_LINES ? list.slice(-LOGS_MAX_LINES) : list);

    const load = () => {
      const mine = ++reading;
      early = [];
      serverApi.logTail().then(
        (tail) => {
          if (mine !== reading) return;
          const came = early ?? [];
          early = null;
          const inTail = new Set(came.length > 0 ? tail.slice(-came.length) : []);
          level = "Info";
          setLines(keep(toLines([...tail, ...came.filter((l) => !inTail.has(l))])));
        },
        () => {
          if (mine !== reading) return;
          const came = early ?? [];
          early = null;
          setLines((old) => keep([...(old ?? []), ...toLines(came)]));
        },
      );
    };
    // The socket hands over a batch line by line: they are added together, once per batch.
    const add = (text: string) => {
      if (early) return void early.push(text);
      pending.push(text);
      if (pending.length === 1) {
        queueMicrotask(() => {
          const batch = pending;
          pending = [];
          setLines((old) => keep([...(old ?? []), ...toLines(batch)]));
        });
      }
    };
    const leave = socket.subscribe("logs", add, load);
    load();
    return () => {
      reading++;
      leave();
    };
  }, []);
  return lines;
}

export default function Logs() {
  const lines = useLiveLog();
  const { online } = useSnapshot(connection);
  const [search, setSearch] = useState("");
  const [levels, setLevels] = useState<ReadonlySet<LogLevel>>(() => new Set(LOG_LEVELS));
  // Typing stays quick with thousands of lines: the list follows a moment later.
  const query = useDeferredValue(search.trim().toLowerCase());

  const { shown, counts } = useMemo(() => {
    const counts = Object.fromEntries(LOG_LEVELS.map((l) => [l, 0])) as Record<LogLevel, number>;
    const shown: Line[] = [];
    for (const line of lines ?? []) {
      counts[line.level]++;
      if (levels.has(line.level) && (query === "" || line.lower.includes(query))) shown.push(line);
    }
    return { shown, counts };
  }, [lines, levels, query]);
  const { box, following, onScroll, toBottom } = useFollowBottom(shown);

  const toggle = (level: LogLevel, on: boolean) =>
    setLevels((old) => {
      const next = new Set(old);
      if (on) next.add(level);
      else next.delete(level);
      return next;
    });

  return (
    <Page title="Logs">
      <Panel
        title="Logs"
        action={
          <Button
            component="a"
            href={serverApi.logDownloadUrl()}
            download="factorio-current.log"
            color="secondary"
            size="small"
            // Nothing to download before the game has written a log.
            disabled={!online || lines?.length === 0}
            startIcon={<DownloadIcon />}
          >
            Download
          </Button>
        }
      >
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          The game's log of its current or last run (factorio-current.log), live, newest at the bottom. Up to
          {" "}
          {LOGS_MAX_LINES.toLocaleString("en")} lines show here; Download has the whole log.
        </Typography>
        <Box
          sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", columnGap: 2, rowGap: 0.5, mb: 1 }}
        >
          <TextField
            type="search"
            label="Search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            sx={{ maxWidth: { sm: 320 } }}
            slotProps={{ htmlInput: { autoComplete: "off", spellCheck: false } }}
          />
          <FormGroup row aria-label="Levels shown">
            {LOG_LEVELS.map((level) => (
              <FormControlLabel
                key={level}
                label={`${level} (${counts[level].toLocaleString("en")})`}
                control={<Checkbox checked={levels.has(level)} onChange={(_, on) => toggle(level, on)} />}
                sx={{ mr: 1.5 }}
              />
            ))}
          </FormGroup>
        </Box>
        {lines && (
          <Typography variant="body2" color="text.secondary" data-testid="logs-count" sx={{ mb: 1 }}>
            {shown.length === lines.length
              ? `${lines.length.toLocaleString("en")} lines`
              : `${shown.length.toLocaleString("en")} of ${lines.length.toLocaleString("en")} lines`}
          </Typography>
        )}
        <Box sx={{ position: "relative" }}>
          <Box
            ref={box}
            role="log"
            aria-label="Factorio log"
            tabIndex={0}
            data-following={following}
            onScroll={onScroll}
            // On a phone the newest line stays above the bottom bar.
            sx={[logBoxSx, {
              height: { xs: "calc(100dvh - 470px)", md: "calc(100vh - 400px)" },
              minHeight: 240,
            }]}
          >
            {lines === null
              ? <CircularProgress size={22} aria-label="Loading the log" />
              : lines.length === 0
              ? (
                <Typography color="text.secondary" sx={{ fontSize: "inherit" }}>
                  The log is empty: the game has not run yet.
                </Typography>
              )
              : shown.length === 0
              ? <Typography color="text.secondary" sx={{ fontSize: "inherit" }}>No line matches.</Typography>
              : shown.map((l) => <LogLine key={l.id} text={l.text} mark={query || undefined} />)}
          </Box>
          {!following && <NewestLinesButton onClick={toBottom} />}
        </Box>
      </Panel>
    </Page>
  );
}
