// A log that grows while it is shown (the Console, the Logs page): its lines, each a plain element rendered
// once, and the box that follows the newest line at the bottom unless the user scrolled up, with a
// "Newest lines" button to go back there.

import { memo, type ReactNode, useEffect, useRef, useState } from "react";
import { Button } from "@mui/material";
import ArrowDownwardIcon from "@mui/icons-material/ArrowDownward";
import { factorio } from "../theme.ts";

/**
 * One line of the game log, a plain element rendered once: with thousands of lines on screen, each new
 * line rendered them all again, each a styled Box, and a busy game kept a phone's main thread busy.
 * `mark` (a search) is highlighted wherever it occurs, in any case.
 */
export const LogLine = memo(function LogLine({ text, mark }: { text: string; mark?: string }) {
  return <div style={{ color: lineColor(text) }}>{mark ? highlighted(text, mark) : text}</div>;
});

const MARK = { backgroundColor: factorio.orange, color: "#1a1208" };

function highlighted(text: string, mark: string): ReactNode[] {
  const parts: ReactNode[] = [];
  const lower = text.toLowerCase();
  const needle = mark.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    parts.push(text.slice(from, at), <mark key={at} style={MARK}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return parts;
}

function lineColor(line: string): string | undefined {
  if (/^\S+> /.test(line)) return factorio.orange; // a command someone typed
  if (/\sError\s|crashed/.test(line)) return "#ff7b66";
  if (/^\s*\d+\.\d{3} Warning /.test(line)) return "#f2d16b";
  if (/\[(CHAT|JOIN|LEAVE|KICK|BAN|PROMOTE|DEMOTE)\]/.test(line)) return factorio.title;
  return undefined;
}

/**
 * Follows the bottom of a scrolling box as `content` grows, until the user scrolls up. Only a scroll
 * upwards stops following: the scroll event of our own jump to the bottom arrives after more lines may
 * have grown the box, and must not count as the user leaving the bottom.
 */
export function useFollowBottom(content: unknown) {
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const lastTop = useRef(0);
  const [following, setFollowing] = useState(true);
  const setFollow = (on: boolean) => {
    follow.current = on;
    setFollowing(on);
  };

  useEffect(() => {
    const el = box.current;
    if (el && follow.current) {
      el.scrollTop = el.scrollHeight;
      lastTop.current = el.scrollTop;
    }
  }, [content]);

  const onScroll = (e: { currentTarget: HTMLDivElement }) => {
    const el = e.currentTarget;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    if (atBottom) setFollow(true);
    else if (el.scrollTop < lastTop.current - 2) setFollow(false);
    lastTop.current = el.scrollTop;
  };

  const toBottom = () => {
    const el = box.current;
    if (!el) return;
    setFollow(true);
    el.scrollTop = el.scrollHeight;
    lastTop.current = el.scrollTop;
  };

  return { box, following, onScroll, toBottom };
}

/** Back to the newest line, shown while the user has scrolled up (the box's parent is positioned). */
export function NewestLinesButton({ onClick }: { onClick: () => void }) {
  return (
    <Button
      size="small"
      color="secondary"
      startIcon={<ArrowDownwardIcon />}
      onClick={onClick}
      sx={{ position: "absolute", right: 12, bottom: 12 }}
    >
      Newest lines
    </Button>
  );
}
