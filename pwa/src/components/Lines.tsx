// What the panel answered, one line each (an import's lines), as it wrote them.

import { Box } from "@mui/material";
import { insetBox } from "../theme.ts";

export function Lines({ lines, label }: { lines: readonly string[]; label: string }) {
  return (
    <Box
      component="pre"
      aria-label={label}
      sx={{ ...insetBox, m: 0, p: 1.5, whiteSpace: "pre-wrap", wordBreak: "break-word", fontSize: "0.85rem" }}
    >
      {lines.join("\n")}
    </Box>
  );
}
