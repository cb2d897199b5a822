import { IconButton, Tooltip } from "@mui/material";
import type { SxProps, Theme } from "@mui/material/styles";
import DeleteIcon from "@mui/icons-material/Delete";
import { useCan } from "../state/access.ts";
import type { Role } from "../../../shared/api.ts";

/** The red bin icon every table uses for removing a row; `label` names what it removes for screen readers. */
export function DeleteButton(
  p: {
    title: string;
    label: string;
    onClick: () => void;
    disabled?: boolean;
    sx?: SxProps<Theme>;
    need?: Role;
  },
) {
  // Removing is a change: operators and up, unless the row is the user's own (need "viewer").
  const can = useCan(p.need ?? "operator");
  return (
    <Tooltip title={p.title}>
      {/* A span, so the tooltip still explains a disabled button. */}
      <span>
        <IconButton
          color="error"
          aria-label={p.label}
          disabled={p.disabled || !can}
          onClick={p.onClick}
          sx={p.sx}
        >
          <DeleteIcon />
        </IconButton>
      </span>
    </Tooltip>
  );
}
