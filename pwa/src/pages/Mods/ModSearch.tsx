import {
  type FocusEvent,
  type InputHTMLAttributes,
  memo,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { Autocomplete, Popper, type PopperProps, TextField } from "@mui/material";
import type { PortalListEntry } from "../../../../shared/api.ts";
import { SEARCH_DEBOUNCE_MS } from "./modSearch.ts";
import type { Searcher } from "./portalSearch.ts";

/** The suggestion list is about 16rem high (spec section 9). */
export const LIST_HEIGHT = "16rem";
/**
 * Suggestion rows rendered when a search answers: more than the list shows (about four in 16rem). The
 * others (up to MAX_SUGGESTIONS) follow once the list is scrolled or the highlight comes near the last
 * row rendered, so every suggestion can still be reached. Rendering all 25 rows, and MUI measuring them
 * for the popper and the highlight, was most of an answer's work, and a keystroke typed just after an
 * answer waited for it (bench/mod-search.mjs).
 */
export const FIRST_ROWS = 8;

/**
 * One suggestion's text: plain spans styled once by the list (LISTBOX_SX). A search's answer renders
 * up to 25 new rows at once; with two Typography components each, resolving their styles took most of
 * that render, and a keystroke typed meanwhile waited for it (bench/mod-search.mjs).
 */
const SuggestionText = memo(function SuggestionText({ title, name }: { title: string; name: string }) {
  return (
    <>
      <span className="mod-title">{title}</span>
      <span className="mod-name">{name}</span>
    </>
  );
});

/**
 * The suggestions' text styles, as the Typography they replace looked: the title as body1 in bold on its
 * own line, the mod's name as a caption (in the option's text colour: the Typography's
 * color="text.secondary" did not reach it).
 */
const LISTBOX_SX = {
  "& .mod-title": { typography: "body1", display: "block", fontWeight: 600 },
  "& .mod-name": { typography: "caption" },
} as const;

const LISTBOX_STYLE = { maxHeight: LIST_HEIGHT } as const;

/** The list item's own style, one object for all rows (MUI's option class sets display: flex). */
const ROW_STYLE = { display: "block" } as const;

/**
 * The popper is a compositor layer of its own. Chromium composites the blinking caret of the focused box,
 * and whatever paints after the caret and overlaps it gets a layer too: the box's outline, and its
 * placeholder while the box is empty. The suggestions, painted later, were merged into such a layer, so
 * clearing the box (the placeholder's layer appears) or the first letter after it (it goes) moved them
 * to another layer and every tile under them was drawn again: 20-25 tiles, 5-11 ms of raster for that
 * key, which then took 15.7 ms on average to reach the screen (12.6 ms now; a plain-DOM box 10.3). In a
 * layer of their own they are drawn only when they change (bench/mod-search.mjs; CDP LayerTree shows
 * the layers).
 */
const POPPER_SX = { willChange: "transform" } as const;

/**
 * The suggestions' popper, re-rendered only when what it shows changed (`shows`). MUI's Popper
 * re-measures its position after every render of its own (a forced layout of the page), and the
 * Autocomplete renders it again whenever it renders (when typing pauses, say) although the suggestions
 * change only when a search answers: that made keystrokes miss the next frame (bench/mod-search.mjs).
 * Highlighting an option does not need a render: MUI sets its classes directly.
 */
const SuggestionsPopper = memo(
  function SuggestionsPopper({ shows: _shows, ...props }: PopperProps & { shows?: unknown }) {
    return <Popper {...props} sx={POPPER_SX} />;
  },
  (a, b) =>
    a.shows === b.shows && a.open === b.open && a.anchorEl === b.anchorEl && a.className === b.className &&
    a.style?.width === b.style?.width && a.disablePortal === b.disablePortal && a.placement === b.placement,
);

/**
 * The mod search box: fuzzy suggestions 200 ms after typing stops; the pick goes to `onPick`.
 *
 * The box's text lives in the input element while the user types; the Autocomplete is told it (`input`)
 * only once typing pauses for the debounce, which is also when the search runs. A controlled box
 * re-rendered the Autocomplete, its text field and its effects (which measure the open list, forcing a
 * layout) on every keystroke: keystrokes missed the next frame (bench/mod-search.mjs). Text the
 * Autocomplete itself sets (a pick, the clear button, leaving the box) is written into the input.
 */
export function ModSearch(
  props: { searcher: Searcher; value: PortalListEntry | null; onPick: (m: PortalListEntry | null) => void },
) {
  const { searcher, value, onPick } = props;
  // The box's text as of the last pause in typing (or as the Autocomplete set it): what is searched.
  const [input, setInput] = useState("");
  const box = useRef<HTMLInputElement | null>(null);
  const pause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [options, setOptions] = useState<PortalListEntry[]>([]);
  // The text whose search answered last: until then a search is under way. MUI shows "Searching…" only
  // in an empty list, so a search under way while suggestions are shown needs no render.
  const [answered, setAnswered] = useState("");
  const shown = useRef(options);
  const latest = useRef(0);
  // All the suggestions are rendered, not only the first rows (FIRST_ROWS).
  const [allRows, setAllRows] = useState(false);
  const rendered = useMemo(() => (allRows ? options : options.slice(0, FIRST_ROWS)), [options, allRows]);
  const loading = options.length === 0 && input.trim() !== "" && answered !== input;
  const noOptionsText = input.trim().length < 3 ? "Type at least 3 characters" : "No mod matches";
  // What the suggestions list shows; a new object when any of it changes (SuggestionsPopper).
  const shows = useMemo(() => ({}), [rendered, loading, noOptionsText, value]);
  // Whether the suggestions list is open. Opening it mounts the popper and its list, which MUI positions
  // (a forced layout): ~20 ms. MUI opens it from the first key's input event, so that key's letter
  // waited for it and missed the next frame (bench/mod-search.mjs). It is opened once the frame with the
  // letter is painted (the same wait as Controls' first paint); closing stays immediate.
  const [open, setOpen] = useState(false);
  const opening = useRef<number | undefined>(undefined);
  const onOpen = useCallback(() => {
    if (opening.current !== undefined) return;
    opening.current = requestAnimationFrame(() =>
      setTimeout(() => {
        if (opening.current === undefined) return; // closed meanwhile
        opening.current = undefined;
        setOpen(true);
      })
    );
  }, []);
  // Also on leaving the box: MUI does not close a list that is not open yet.
  const onClose = useCallback(() => {
    cancelAnimationFrame(opening.current ?? 0);
    opening.current = undefined;
    setOpen(false);
  }, []);
  useEffect(() => () => cancelAnimationFrame(opening.current ?? 0), []);
  const placeholder = useMemo(() => `${searcher.size.toLocaleString("en")} mods on the portal`, [
    searcher.size,
  ]);

  /** Typing: the text is taken (and searched) once no key came for the debounce time. */
  const typed = useCallback(() => {
    clearTimeout(pause.current);
    pause.current = setTimeout(() => setInput(box.current?.value ?? ""), SEARCH_DEBOUNCE_MS);
  }, []);
  /** Text the Autocomplete sets: into the box at once, and no typed text pending after it. */
  const setText = useCallback((text: string) => {
    clearTimeout(pause.current);
    if (box.current && box.current.value !== text) box.current.value = text;
    setInput(text);
  }, []);
  useEffect(() => () => clearTimeout(pause.current), []);

  useEffect(() => {
    const id = ++latest.current; // an answer to an older text is dropped
    // Picking a suggestion puts its title in the box; that is not a new search.
    if (input.trim() === "" || (value && input === value.title)) {
      shown.current = value ? [value] : [];
      setOptions(shown.current);
      setAllRows(false);
      return;
    }
    void searcher.search(input).then((results) => {
      if (id !== latest.current) return; // a newer search is under way
      // Another letter often leaves the suggestions as they are: then nothing is rendered again.
      const same = results.length > 0 && results.length === shown.current.length &&
        results.every((m, i) => m.name === shown.current[i].name);
      if (same) return;
      shown.current = results;
      setOptions(results);
      setAllRows(false);
      setAnswered(input);
    });
  }, [input, searcher, value]);

  return (
    <Autocomplete
      options={rendered}
      filterOptions={(x) => x}
      open={open}
      onOpen={onOpen}
      onClose={onClose}
      getOptionLabel={(o) => o.title}
      isOptionEqualToValue={(a, b) => a.name === b.name}
      value={value}
      onChange={(_, v) => {
        // The Autocomplete leaves the text alone when it already had the title (it may not have seen
        // the keys typed since): the box shows the pick's title either way.
        if (v) setText(v.title);
        onPick(v);
      }}
      inputValue={input}
      onInputChange={(_, v, reason) => (reason === "input" ? typed() : setText(v))}
      loading={loading}
      loadingText="Searching…"
      noOptionsText={noOptionsText}
      autoHighlight
      onHighlightChange={(_, option) => {
        if (!allRows && option && rendered.indexOf(option) >= FIRST_ROWS - 2) setAllRows(true);
      }}
      slots={{ popper: SuggestionsPopper }}
      slotProps={{
        listbox: { style: LISTBOX_STYLE, sx: LISTBOX_SX, onScroll: () => !allRows && setAllRows(true) },
        popper: { shows } as unknown as PopperProps,
      }}
      renderInput={(params) => {
        // The input element keeps its own text (no `value`), see above.
        const { value: _text, onBlur, ...htmlInput } = params.slotProps.htmlInput as InputHTMLAttributes<
          HTMLInputElement
        >;
        return (
          <TextField
            {...params}
            inputRef={box}
            slotProps={{
              ...params.slotProps,
              htmlInput: {
                ...htmlInput,
                onBlur: (e: FocusEvent<HTMLInputElement>) => {
                  onBlur?.(e);
                  onClose();
                  // Leaving the box puts back the pick's title, or clears it (clearOnBlur), also when
                  // the Autocomplete had not yet seen the text typed last.
                  if (document.activeElement !== e.target) setText(value?.title ?? "");
                },
              },
            }}
            label="Search mods"
            placeholder={placeholder}
          />
        );
      }}
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
