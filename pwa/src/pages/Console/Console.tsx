import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { Box, Button, IconButton, TextField, Typography, useMediaQuery } from "@mui/material";
import SendIcon from "@mui/icons-material/Send";
import HistoryIcon from "@mui/icons-material/History";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { server } from "../../state/server.ts";
import { socket } from "../../state/socket.ts";
import { showFlash } from "../../state/flash.ts";
import { MSG } from "../../../../shared/messages.ts";
import { logBoxSx } from "../../components/logStyle.ts";
import { LogLine, NewestLinesButton, useFollowBottom } from "../../components/LiveLog.tsx";
import { useCan } from "../../state/access.ts";
import { ACCESS_MSG } from "../../../../shared/access.ts";

/** Lines the console keeps on screen; older ones scroll away for good. */
export const CONSOLE_MAX_LINES = 2000;
const HISTORY_MAX = 100;

// Earlier commands, newest last. Module state: it survives leaving the page and coming back.
const history: string[] = [];

/**
 * The live game log: replayed recent lines on open, then live, following the bottom unless the user
 * scrolled up.
 */
function GameLog() {
  const [lines, setLines] = useState<{ id: number; text: string }[]>([]);
  const { box, following, onScroll, toBottom } = useFollowBottom(lines);

  useEffect(() => {
    let id = 0;
    return socket.subscribe(
      "gamelog",
      (text) => {
        setLines((old) => {
          const next = [...old, { id: id++, text }];
          return next.length > CONSOLE_MAX_LINES ? next.slice(-CONSOLE_MAX_LINES) : next;
        });
      },
      // After a reconnect the server replays its recent lines: they replace what is shown, not add to it.
      () => setLines([]),
    );
  }, []);

  return (
    <Box sx={{ position: "relative" }}>
      <Box
        ref={box}
        role="log"
        aria-label="Game log"
        aria-live="polite"
        tabIndex={0}
        data-following={following}
        onScroll={onScroll}
        sx={[logBoxSx, { height: { xs: "calc(100dvh - 330px)", md: "62vh" }, minHeight: 200 }]}
      >
        {lines.length === 0 && (
          <Typography color="text.secondary" sx={{ fontSize: "inherit" }}>
            Waiting for the game's output...
          </Typography>
        )}
        {lines.map((l) => <LogLine key={l.id} text={l.text} />)}
      </Box>
      {!following && <NewestLinesButton onClick={toBottom} />}
    </Box>
  );
}

/**
 * The command line: Enter or Send sends and clears; on a keyboard, up/down walk through earlier commands,
 * on a phone the Previous button does.
 */
function CommandInput() {
  const [text, setText] = useState("");
  const [pos, setPos] = useState<number | null>(null);
  const input = useRef<HTMLInputElement>(null);

  function send() {
    const command = text.trim();
    if (command === "") return;
    if (!socket.command(command)) {
      showFlash(
        "Not connected to the panel: the command was not sent. It reconnects in a few seconds.",
        "error",
      );
      return;
    }
    if (history[history.length - 1] !== command) history.push(command);
    if (history.length > HISTORY_MAX) history.shift();
    setText("");
    setPos(null);
  }

  function previous() {
    if (history.length === 0) return;
    const next = pos === null ? history.length - 1 : Math.max(0, pos - 1);
    setPos(next);
    setText(history[next]);
    input.current?.focus();
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === "Enter") {
      e.preventDefault();
      send();
    } else if (e.key === "ArrowUp" && history.length > 0) {
      e.preventDefault();
      const next = pos === null ? history.length - 1 : Math.max(0, pos - 1);
      setPos(next);
      setText(history[next]);
    } else if (e.key === "ArrowDown" && pos !== null) {
      e.preventDefault();
      const next = pos + 1;
      if (next >= history.length) {
        setPos(null);
        setText("");
      } else {
        setPos(next);
        setText(history[next]);
      }
    }
  }

  const phone = useMediaQuery("(pointer: coarse), (max-width: 899.95px)");
  return (
    <Box
      component="form"
      aria-label="Send to the game"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
      sx={{ display: "flex", gap: 1, alignItems: "flex-start" }}
    >
      <TextField
        inputRef={input}
        label="Command"
        placeholder="/players, /time, or text to chat as the server"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setPos(null);
        }}
        onKeyDown={onKeyDown}
        // On a phone the keyboard would cover the log the moment the page opens.
        autoFocus={!phone}
        slotProps={{
          htmlInput: { autoComplete: "off", autoCapitalize: "off", spellCheck: false, enterKeyHint: "send" },
        }}
        helperText={phone
          ? "Send runs it; Previous brings back earlier commands."
          : "Enter sends; the up and down arrows bring back earlier commands."}
      />
      {phone && (
        <IconButton aria-label="Previous" onClick={previous} disabled={history.length === 0} sx={{ mt: 0 }}>
          <HistoryIcon />
        </IconButton>
      )}
      <Button type="submit" endIcon={<SendIcon />} sx={{ flexShrink: 0, minHeight: 44 }}>Send</Button>
    </Box>
  );
}

export default function Console() {
  const { status } = useSnapshot(server);
  const running = status?.status === "running";
  const canSend = useCan("operator");
  return (
    <Page title="Console">
      <Panel title="Console">
        {running
          ? (
            <Box sx={{ display: "grid", gap: 2 }}>
              <GameLog />
              {canSend
                ? <CommandInput />
                : <Typography color="text.secondary">{ACCESS_MSG.consoleNotAllowed}</Typography>}
            </Box>
          )
          : <Typography>{MSG.consoleUnavailable}</Typography>}
      </Panel>
    </Page>
  );
}

/** For tests: forget the command history. */
export function clearHistory(): void {
  history.splice(0);
}
