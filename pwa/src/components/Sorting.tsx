// Sorting a list by one of its columns: the header cells of a table, and on phones (where a list is
// cards, without headers) one "Sort by" field with a direction button. Both pages with sortable lists
// (Saves, Player history) use these, so a column sorts the same way in either layout.

import { Box, IconButton, MenuItem, TableCell, TableSortLabel, TextField, Tooltip } from "@mui/material";
import type { SxProps, Theme } from "@mui/material/styles";
import ArrowDownwardIcon from "@mui/icons-material/ArrowDownward";
import ArrowUpwardIcon from "@mui/icons-material/ArrowUpward";

export interface Sort<K extends string> {
  by: K;
  desc: boolean;
}

export interface SortColumn<K extends string> {
  key: K;
  label: string;
  /** Right-aligned in tables (numbers). */
  numeric?: boolean;
  /** The direction a first click on this column chooses (names A-Z; dates and sizes newest/largest first). */
  firstDesc?: boolean;
}

/** The order after choosing `key`: the other direction for the current column, the column's own first direction otherwise. */
export function nextSort<K extends string>(sort: Sort<K>, column: SortColumn<K>): Sort<K> {
  return sort.by === column.key
    ? { by: column.key, desc: !sort.desc }
    : { by: column.key, desc: column.firstDesc ?? false };
}

/** A table header cell that sorts by its column. */
export function SortHeadCell<K extends string>(
  { column, sort, onSort, sx }: {
    column: SortColumn<K>;
    sort: Sort<K>;
    onSort: (s: Sort<K>) => void;
    sx?: SxProps<Theme>;
  },
) {
  const active = sort.by === column.key;
  return (
    <TableCell
      align={column.numeric ? "right" : "left"}
      sortDirection={active ? (sort.desc ? "desc" : "asc") : false}
      sx={sx}
    >
      <TableSortLabel
        active={active}
        direction={active && sort.desc ? "desc" : "asc"}
        onClick={() => onSort(nextSort(sort, column))}
        sx={{ minHeight: 44 }}
      >
        {column.label}
      </TableSortLabel>
    </TableCell>
  );
}

/** Phones: the column to sort by, and the direction. */
export function SortPicker<K extends string>(
  { columns, sort, onSort }: { columns: SortColumn<K>[]; sort: Sort<K>; onSort: (s: Sort<K>) => void },
) {
  const direction = sort.desc ? "Descending" : "Ascending";
  return (
    <Box sx={{ display: "flex", gap: 1, alignItems: "center", mb: 1.5 }}>
      <TextField
        select
        size="small"
        label="Sort by"
        value={sort.by}
        onChange={(e) => onSort(nextSort(sort, columns.find((c) => c.key === e.target.value)!))}
        sx={{ flex: "1 1 auto", maxWidth: 240 }}
      >
        {columns.map((c) => <MenuItem key={c.key} value={c.key}>{c.label}</MenuItem>)}
      </TextField>
      <Tooltip title={`${direction}; tap for the other way`}>
        <IconButton
          aria-label={`Sort order: ${direction.toLowerCase()}`}
          onClick={() => onSort({ ...sort, desc: !sort.desc })}
        >
          {sort.desc ? <ArrowDownwardIcon /> : <ArrowUpwardIcon />}
        </IconButton>
      </Tooltip>
    </Box>
  );
}
