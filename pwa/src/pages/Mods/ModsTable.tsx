import { DeleteButton } from "../../components/DeleteButton.tsx";
import { memo, useMemo, useRef } from "react";
import {
  Box,
  Chip,
  IconButton,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from "@mui/material";
import CheckIcon from "@mui/icons-material/Check";
import CloseIcon from "@mui/icons-material/Close";
import UpgradeIcon from "@mui/icons-material/Upgrade";
import PushPinIcon from "@mui/icons-material/PushPin";
import PushPinOutlinedIcon from "@mui/icons-material/PushPinOutlined";
import type { Mod, ModUpdate } from "../../../../shared/api.ts";
import { formatVersion, parseVersion } from "../../../../shared/versions.ts";
import { DisabledGroup } from "../../components/ReadOnly.tsx";
import { sameData, useProgressiveCount } from "../../components/useProgressive.ts";

/** "1.1.0.0" as "1.1" (Factorio versions) or "3.0.0" (mod versions). */
export function shortVersion(v: string, parts: 2 | 3 = 3): string {
  const parsed = parseVersion(v);
  if (!parsed) return v;
  const text = formatVersion(parsed, 4);
  return parsed[3] !== 0 ? text : formatVersion(parsed, parts);
}

export function Compatibility({ ok, small }: { ok: boolean; small?: boolean }) {
  const fontSize = small ? "inherit" : "medium";
  return ok
    ? <CheckIcon color="success" fontSize={fontSize} aria-label="compatible" titleAccess="compatible" />
    : (
      <CloseIcon
        color="error"
        fontSize={fontSize}
        aria-label="not compatible"
        titleAccess="not compatible"
      />
    );
}

/** Columns that phones fold into the Name cell. */
const wide = { display: { xs: "none", sm: "table-cell" } } as const;

export interface ModsTableProps {
  /** Accessible name of the table, e.g. "Installed mods" or "Mods of pack X". */
  label: string;
  mods: readonly Mod[];
  updates?: readonly ModUpdate[];
  /** No toggles, updates or deletes (the game is running). */
  readOnly?: boolean;
  disabled?: boolean;
  onToggle?: (m: Mod) => void;
  onDelete?: (m: Mod) => void;
  onUpdate?: (u: ModUpdate) => void;
  /** Pin or unpin (the installed mods only): a pinned mod is offered no updates. */
  onPin?: (m: Mod, pinned: boolean) => void;
}

/** What a row does; one object for the table's life, so rows stay as they are while the page renders. */
interface RowActions {
  toggle(m: Mod): void;
  remove(m: Mod): void;
  update(u: ModUpdate): void;
  pin(m: Mod, pinned: boolean): void;
}

interface RowProps {
  mod: Mod;
  /** The update offered for this mod (none for a pinned one). */
  update: ModUpdate | undefined;
  readOnly: boolean;
  pinnable: boolean;
  actions: RowActions;
}

/**
 * One mod's row, rendered again only when its own data changed: toggling one of 300 mods (the change
 * reloads the list) rendered all 300 rows several times, seconds on a phone (bench/lists-ui.mjs).
 */
const ModRow = memo(
  function ModRow({ mod: m, update, readOnly, pinnable, actions }: RowProps) {
    return (
      <TableRow hover>
        <TableCell>
          <Box sx={{ display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" }}>
            <Typography component="span" sx={{ fontWeight: 600 }}>{m.title}</Typography>
            {m.built_in && <Chip size="small" label="built-in" variant="outlined" />}
            {m.error !== null && (
              <Tooltip title={m.error}>
                <Chip size="small" color="error" label="broken" />
              </Tooltip>
            )}
          </Box>
          <Typography variant="caption" color="text.secondary" component="div">
            {m.error ?? (m.title !== m.name ? m.name : m.author)}
            {m.other_versions.length > 0 && ` · also in the folder: ${m.other_versions.join(", ")}`}
          </Typography>
          {m.error === null && (
            // On phones the Compatibility and Factorio Version columns fold into the name.
            <Typography
              variant="caption"
              color="text.secondary"
              component="div"
              sx={{ display: { xs: "flex", sm: "none" }, alignItems: "center", gap: 0.5 }}
            >
              Factorio {shortVersion(m.factorio_version, 2)} <Compatibility ok={m.compatibility} small />
            </Typography>
          )}
        </TableCell>
        <TableCell>
          <Switch
            checked={m.enabled}
            disabled={readOnly || m.error !== null}
            onChange={() => actions.toggle(m)}
            slotProps={{ input: { "aria-label": `Enable ${m.name}` } }}
          />
        </TableCell>
        <TableCell sx={wide}>{m.error === null && <Compatibility ok={m.compatibility} />}</TableCell>
        <TableCell>
          <Box sx={{ display: "flex", alignItems: "center", gap: 0.5, whiteSpace: "nowrap" }}>
            {m.version}
            {m.pinned && <Chip size="small" label="pinned" variant="outlined" />}
            {update && !readOnly && (
              <Tooltip title={`Update to ${update.version}`}>
                <span>
                  <IconButton
                    size="small"
                    color="primary"
                    aria-label={`Update ${m.name} to ${update.version}`}
                    onClick={() => actions.update(update)}
                  >
                    <UpgradeIcon />
                  </IconButton>
                </span>
              </Tooltip>
            )}
            {pinnable && (
              <Tooltip title={m.pinned ? "Unpin: offer updates again" : `Pin at ${m.version}: no updates`}>
                <span>
                  <IconButton
                    size="small"
                    aria-label={m.pinned ? `Unpin ${m.name}` : `Pin ${m.name} at ${m.version}`}
                    aria-pressed={m.pinned === true}
                    onClick={() =>
                      actions.pin(m, !m.pinned)}
                    sx={{ width: 44, height: 44 }}
                  >
                    {m.pinned ? <PushPinIcon fontSize="small" /> : <PushPinOutlinedIcon fontSize="small" />}
                  </IconButton>
                </span>
              </Tooltip>
            )}
          </Box>
        </TableCell>
        <TableCell sx={wide}>{m.factorio_version && shortVersion(m.factorio_version, 2)}</TableCell>
        {!readOnly && (
          <TableCell align="right">
            {!m.built_in && (
              <DeleteButton
                title={`Delete ${m.name}`}
                label={`Delete ${m.name}`}
                onClick={() => actions.remove(m)}
              />
            )}
          </TableCell>
        )}
      </TableRow>
    );
  },
  (a, b) =>
    a.readOnly === b.readOnly && a.pinnable === b.pinnable && a.actions === b.actions &&
    sameData(a.mod, b.mod) &&
    sameData(a.update, b.update),
);

/**
 * The mods table of the spec: Name, Enabled, Compatibility, Mod Version (+ update), Factorio Version, delete.
 * While `disabled` (a change under way) its controls are off through a disabled fieldset, not row by row;
 * a long list renders its first rows with the page and the rest just after (useProgressiveCount).
 */
export function ModsTable(p: ModsTableProps) {
  const latest = useRef(p);
  latest.current = p;
  const actions = useMemo<RowActions>(() => ({
    toggle: (m) => latest.current.onToggle?.(m),
    remove: (m) => latest.current.onDelete?.(m),
    update: (u) => latest.current.onUpdate?.(u),
    pin: (m, pinned) => latest.current.onPin?.(m, pinned),
  }), []);
  const updates = useMemo(() => new Map(p.updates?.map((u) => [u.modName, u])), [p.updates]);
  const shown = useProgressiveCount(p.mods.length);
  const readOnly = p.readOnly === true;
  return (
    <TableContainer sx={{ overflowX: "auto" }}>
      <DisabledGroup disabled={p.disabled === true}>
        <Table size="small" aria-label={p.label} sx={{ minWidth: { sm: 560 } }}>
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell>Enabled</TableCell>
              <TableCell sx={wide}>Compatibility</TableCell>
              <TableCell>Mod Version</TableCell>
              <TableCell sx={wide}>Factorio Version</TableCell>
              {!readOnly && <TableCell align="right" aria-label="Delete" />}
            </TableRow>
          </TableHead>
          <TableBody>
            {p.mods.slice(0, shown).map((m) => (
              <ModRow
                key={m.name}
                mod={m}
                update={m.pinned ? undefined : updates.get(m.name)}
                readOnly={readOnly}
                pinnable={!!p.onPin && !readOnly && !m.built_in && m.error === null}
                actions={actions}
              />
            ))}
          </TableBody>
        </Table>
      </DisabledGroup>
    </TableContainer>
  );
}
