import { memo, useEffect, useMemo, useRef, useState } from "react";
import { Autocomplete, Popper, type PopperProps, TextField, Typography } from "@mui/material";
import type { PortalListEntry } from "../../../../shared/api.ts";
import { SEARCH_DEBOUNCE_MS } from "./modSearch.ts";
import type { Searcher } from "./portalSearch.ts";
import { useDebounced } from "./useDebounced.ts";

/** The suggestion list is about 16rem high (spec section 9). */
export const LIST_HEIGHT = "16rem";

/**
 * One suggestion's text. Memoised: every keystroke re-renders the Autocomplete and so every open
 * suggestion; re-resolving the styles of 25 rows of typography made keystrokes miss the next frame
 * (bench/mod-search.mjs). The text only changes with the suggestion itself.
 */
const SuggestionText = memo(function SuggestionText({ title, name }: { title: string; name: string }) {
  return (
    <>
      <Typography component="span" sx={{ display: "block", fontWeight: 600 }}>{title}</Typography>
      <Typography component="span" variant="caption" color="text.secondary">{name}</Typography>
    </>
  );
});

/** The list item's own style, one object for all rows (MUI's option class sets display: flex). */
const ROW_STYLE = { display: "block" } as const;

/**
 * The suggestions' popper, re-rendered only when what it shows changed (`shows`). MUI's Popper
 * re-measures its position after every render of its own (a forced layout of the page), and the
 * Autocomplete renders it again on each keystroke although the suggestions change only when a search
 * answers: that made keystrokes miss the next frame (bench/mod-search.mjs). Highlighting an option does
 * not need a render: MUI sets its classes directly.
 */
const SuggestionsPopper = memo(
  function SuggestionsPopper({ shows: _shows, ...props }: PopperProps & { shows?: unknown }) {
    return <Popper {...props} />;
  },
  (a, b) =>
    a.shows === b.shows && a.open === b.open && a.anchorEl === b.anchorEl && a.className === b.className &&
    a.style?.width === b.style?.width && a.disablePortal === b.disablePortal && a.placement === b.placement,
);

/** The mod search box: fuzzy suggestions 200 ms after typing stops; the pick goes to `onPick`. */
export function ModSearch(props: { searcher: Searcher; value: PortalListEntry | null; onPick: (m: PortalListEntry | null) => void }) {
  const { searcher, value, onPick } = props;
  const [input, setInput] = useState("");
  const query = useDebounced(input, SEARCH_DEBOUNCE_MS);
  const [options, setOptions] = useState<PortalListEntry[]>([]);
  const [searching, setSearching] = useState(false);
  const latest = useRef(0);
  const loading = searching && input.trim() !== "";
  const noOptionsText = input.trim().length < 3 ? "Type at least 3 characters" : "No mod matches";
  // What the suggestions list shows; a new object when any of it changes (SuggestionsPopper).
  const shows = useMemo(() => ({}), [options, loading, noOptionsText, value]);

  useEffect(() => {
    // Picking a suggestion puts its title in the box; that is not a new search.
    if (query.trim() === "" || (value && query === value.title)) {
      setOptions(value ? [value] : []);
      return;
    }
    const id = ++latest.current;
    setSearching(true);
    void searcher.search(query).then((results) => {
      if (id !== latest.current) return; // a newer search is under way
      setOptions(results);
      setSearching(false);
    });
  }, [query, searcher, value]);

  return (
    <Autocomplete
      options={options}
      filterOptions={(x) => x}
      getOptionLabel={(o) => o.title}
      isOptionEqualToValue={(a, b) => a.name === b.name}
      value={value}
      onChange={(_, v) => onPick(v)}
      inputValue={input}
      onInputChange={(_, v) => setInput(v)}
      loading={loading}
      loadingText="Searching…"
      noOptionsText={noOptionsText}
      autoHighlight
      slots={{ popper: SuggestionsPopper }}
      slotProps={{ listbox: { style: { maxHeight: LIST_HEIGHT } }, popper: { shows } as unknown as PopperProps }}
      renderInput={(params) => (
        <TextField {...params} label="Search mods" placeholder={`${searcher.size.toLocaleString("en")} mods on the portal`} />
      )}
      renderOption={(liProps, o) => {
        const { key, ...rest } = liProps as typeof liProps & { key: string };
        return (
          <li key={key} {...rest} style={ROW_STYLE}>
            <SuggestionText title={o.title} name={o.name} />
          </li>
        );
      }}
    />
  );
}
