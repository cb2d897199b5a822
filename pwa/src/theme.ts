// A dark theme in the spirit of the game's own GUI: charcoal frames with a light top-left bevel, inset
// dark panels for content, beige bold titles, orange for the primary action and selection, green for
// confirming, red for destructive actions. Titillium Web is the game's UI typeface.

import { alpha, createTheme } from "@mui/material/styles";

export const factorio = {
  page: "#1b1a1b",
  frame: "#313031",
  frameLight: "#4a484a",
  inset: "#242324",
  insetDeep: "#1a191a",
  title: "#ffe6c0",
  text: "#e7e2dc",
  muted: "#a8a29c",
  orange: "#ff9f1b",
  green: "#5eb663",
  // Light enough for red text on the charcoal frames (4.9:1), with dark text on red buttons (7.2:1):
  // white on the game's own darker red only reaches 4.15:1, below WCAG AA.
  red: "#ff7361",
  grey: "#8e8e8e",
};

const bevel = `inset 0 0 0 1px #000, inset 2px 2px 0 ${factorio.frameLight}, 0 3px 8px rgba(0,0,0,0.55)`;
/** Phones and small tablets: every control at least 44 px in both directions, so a thumb hits it. */
const TOUCH = "@media (max-width: 899.95px)";

const insetShadow = "inset 0 2px 4px rgba(0,0,0,0.85), inset 0 0 0 1px #000";

export const theme = createTheme({
  palette: {
    mode: "dark",
    primary: { main: factorio.orange, contrastText: "#1a1208" },
    secondary: { main: factorio.grey, contrastText: "#111" },
    success: { main: factorio.green, contrastText: "#0b1a0c" },
    error: { main: factorio.red, contrastText: "#1a0a08" },
    warning: { main: "#f0c419" },
    background: { default: factorio.page, paper: factorio.frame },
    text: { primary: factorio.text, secondary: factorio.muted },
    divider: "#141314",
  },
  shape: { borderRadius: 3 },
  typography: {
    fontFamily: '"Titillium Web", "Segoe UI", Roboto, sans-serif',
    fontSize: 15,
    h1: { fontWeight: 700, color: factorio.title },
    h2: { fontWeight: 700, color: factorio.title },
    h3: { fontWeight: 700, color: factorio.title },
    h4: { fontWeight: 700, color: factorio.title, fontSize: "1.7rem" },
    h5: { fontWeight: 700, color: factorio.title, fontSize: "1.3rem" },
    h6: { fontWeight: 700, color: factorio.title, fontSize: "1.1rem" },
    button: { fontWeight: 700, textTransform: "none", letterSpacing: 0.2 },
  },
  components: {
    MuiCssBaseline: {
      styleOverrides: {
        body: { backgroundColor: factorio.page },
        "::selection": { background: alpha(factorio.orange, 0.4) },
      },
    },
    MuiPaper: {
      styleOverrides: {
        root: { backgroundImage: "none" },
      },
    },
    MuiCard: {
      defaultProps: { elevation: 0 },
      styleOverrides: { root: { boxShadow: bevel, backgroundColor: factorio.frame } },
    },
    MuiCardHeader: {
      styleOverrides: {
        root: { paddingBottom: 4 },
        title: { color: factorio.title, fontWeight: 700, fontSize: "1.15rem" },
      },
    },
    MuiButton: {
      defaultProps: { variant: "contained", disableElevation: true },
      styleOverrides: {
        root: {
          [TOUCH]: { minHeight: 44 },
          borderRadius: 2,
          boxShadow: "inset 0 0 0 1px #000, inset 1px 1px 0 rgba(255,255,255,0.35)",
          "&:hover": { boxShadow: "inset 0 0 0 1px #000, inset 1px 1px 0 rgba(255,255,255,0.5)" },
        },
      },
    },
    MuiTextField: { defaultProps: { variant: "outlined", size: "small", fullWidth: true } },
    MuiIconButton: { styleOverrides: { root: { [TOUCH]: { minWidth: 44, minHeight: 44 } } } },
    MuiCheckbox: { styleOverrides: { root: { [TOUCH]: { padding: 10 } } } },
    MuiSwitch: {
      styleOverrides: {
        // The thumb's hit area is the switch base; 44 px high on phones, the track centred in it.
        root: { [TOUCH]: { height: 44, padding: 15 } },
        switchBase: { [TOUCH]: { padding: 12 } },
      },
    },
    MuiTab: { styleOverrides: { root: { [TOUCH]: { minHeight: 48 } } } },
    MuiOutlinedInput: {
      styleOverrides: {
        root: {
          [TOUCH]: { minHeight: 44 },
          backgroundColor: factorio.insetDeep,
          boxShadow: "inset 0 2px 3px rgba(0,0,0,0.8)",
        },
      },
    },
    MuiTableContainer: {
      styleOverrides: { root: { backgroundColor: factorio.inset, boxShadow: insetShadow, borderRadius: 2 } },
    },
    MuiTableCell: {
      styleOverrides: {
        root: { borderBottom: "1px solid #161516" },
        head: { color: factorio.title, fontWeight: 700 },
      },
    },
    MuiChip: { styleOverrides: { root: { fontWeight: 700, borderRadius: 3 } } },
    MuiDrawer: {
      styleOverrides: { paper: { backgroundColor: "#262526", borderRight: "1px solid #000" } },
    },
    MuiAppBar: {
      defaultProps: { elevation: 0 },
      styleOverrides: { root: { backgroundColor: "#262526", borderBottom: "1px solid #000" } },
    },
    MuiListItemButton: {
      styleOverrides: {
        root: {
          [TOUCH]: { minHeight: 44 },
          borderLeft: "3px solid transparent",
          "&.active": {
            borderLeftColor: factorio.orange,
            backgroundColor: alpha(factorio.orange, 0.12),
            color: factorio.title,
          },
        },
      },
    },
    MuiAlert: { styleOverrides: { root: { fontWeight: 600, boxShadow: bevel } } },
    MuiDialog: { styleOverrides: { paper: { boxShadow: bevel } } },
  },
});

export const insetBox = {
  backgroundColor: factorio.inset,
  boxShadow: insetShadow,
  borderRadius: "2px",
} as const;
