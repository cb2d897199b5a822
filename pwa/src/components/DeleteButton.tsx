import { IconButton, Tooltip } from "@mui/material";
import type { SxProps, Theme } from "@mui/material/styles";
import DeleteIcon from "@mui/icons-material/Delete";

/** The red bin icon every table uses for removing a row; `label` names what it removes for screen readers. */
export function DeleteButton(p: { title: string; label: string; onClick: () => void; disabled?: boolean; sx?: SxProps<Theme> }) {
  return (
    <Tooltip title={p.title}>
      {/* A span, so the tooltip still explains a disabled button. */}
      <span>
        <IconButton color="error" aria-label={p.label} disabled={p.disabled} onClick={p.onClick} sx={p.sx}>
          <DeleteIcon />
        </IconButton>
      </span>
    </Tooltip>
  );
}
