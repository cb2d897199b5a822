import { type MouseEvent, type ReactNode, useEffect, useState } from "react";
import { Link as RouterLink, NavLink, Outlet, useLocation, useNavigate } from "react-router-dom";
import {
  Alert,
  AppBar,
  Box,
  Button,
  Divider,
  Drawer,
  IconButton,
  Link,
  List,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  ListSubheader,
  Toolbar,
  Typography,
  useMediaQuery,
} from "@mui/material";
import { useTheme } from "@mui/material/styles";
import MenuIcon from "@mui/icons-material/Menu";
import LogoutIcon from "@mui/icons-material/Logout";
import PrecisionManufacturingIcon from "@mui/icons-material/PrecisionManufacturing";
import { useSnapshot } from "valtio";
import { NAV_GROUPS } from "../nav.tsx";
import { transferApi } from "../api/transfer.ts";
import { StatusBadge } from "./StatusBadge.tsx";
import { InstallBanner } from "./InstallBanner.tsx";
import { ConfirmDialog } from "./ConfirmDialog.tsx";
import { logout, session } from "../state/session.ts";
import { unsaved } from "../state/unsaved.ts";
import { factorio } from "../theme.ts";
import { type Role, roleAtLeast } from "../../../shared/api.ts";
import { PANEL_MSG } from "../../../shared/messages.ts";

const DRAWER_WIDTH = 248;
/** The phone's bottom bar: the menu sits where the thumb is. */
const BOTTOM_BAR = 60;

function Brand() {
  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
      <PrecisionManufacturingIcon sx={{ color: factorio.orange }} />
      <Typography variant="h6" component="span" noWrap>Factorio Panel</Typography>
    </Box>
  );
}

/** Where a link leads, or "logout"; held while the user decides about unsaved changes. */
type Leave = string | "logout";

function Sidebar({ onLeave }: { onLeave: (e: MouseEvent, to: Leave) => void }) {
  const { user } = useSnapshot(session);
  return (
    <Box sx={{ display: "flex", flexDirection: "column", height: "100%" }}>
      <Box sx={{ px: 2, py: 2, display: "grid", gap: 1.2 }}>
        <Brand />
        <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
          <Typography variant="body2" color="text.secondary">Server</Typography>
          <StatusBadge />
        </Box>
      </Box>
      <Divider />
      <Box component="nav" aria-label="Main" sx={{ flexGrow: 1, overflowY: "auto" }}>
        {NAV_GROUPS.map((group) => ({ ...group, items: group.items.filter((item) => roleAtLeast((user?.role as Role | undefined) ?? "admin", item.role ?? "viewer")) })).filter((group) => group.items.length > 0).map((group) => (
          // Divs with role "group", not lists: the links are anchors, which a <ul> may not hold directly.
          <List
            key={group.id}
            component="div"
            role="group"
            dense
            aria-labelledby={`nav-${group.id}`}
            subheader={
              <ListSubheader
                id={`nav-${group.id}`}
                component="div"
                disableSticky
                sx={{ bgcolor: "transparent", color: factorio.muted, lineHeight: "28px", mt: 0.5, fontWeight: 700, textTransform: "uppercase", fontSize: "0.72rem", letterSpacing: 0.8 }}
              >
                {group.label}
              </ListSubheader>
            }
            sx={{ py: 0 }}
          >
            {group.items.map((item) => (
              <ListItemButton
                key={item.to}
                component={NavLink}
                to={item.to}
                end={item.to === "/" || item.end === true}
                onClick={(e: MouseEvent) => onLeave(e, item.to)}
              >
                <ListItemIcon sx={{ minWidth: 38 }}>{item.icon}</ListItemIcon>
                <ListItemText primary={item.label} />
              </ListItemButton>
            ))}
          </List>
        ))}
      </Box>
      <Divider />
      <List component="div">
        <ListItemButton onClick={(e) => onLeave(e, "logout")}>
          <ListItemIcon sx={{ minWidth: 38 }}><LogoutIcon /></ListItemIcon>
          <ListItemText
            primary="Logout"
            secondary={user ? `Signed in as ${user.username} (${user.role})` : undefined}
            slotProps={{ secondary: { sx: { color: factorio.muted } } }}
          />
        </ListItemButton>
      </List>
    </Box>
  );
}

/** Whether the first-run import is offered (a new panel): asked only while the generated password is in use. */
function useImportOffered(ask: boolean): boolean {
  const [offered, setOffered] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => {
    if (!ask) return setOffered(false);
    let live = true;
    transferApi.status().then((s) => live && setOffered(s.available), () => {});
    return () => {
      live = false;
    };
  }, [ask, pathname]);
  return offered;
}

/** After the first sign-in with the generated password: ask for one of the user's own. */
function GeneratedPasswordPrompt({ onLeave }: { onLeave: (e: MouseEvent, to: Leave) => void }) {
  const { user } = useSnapshot(session);
  const importOffered = useImportOffered(user?.generated_password === true && user.role === "admin");
  if (!user?.generated_password) return null;
  return (
    <Alert
      severity="warning"
      variant="outlined"
      data-testid="generated-password"
      sx={{ mb: 2.5 }}
      action={
        <Button
          component={RouterLink}
          to="/user-management#change-password"
          color="primary"
          onClick={(e: MouseEvent) => onLeave(e, "/user-management#change-password")}
        >
          Change password
        </Button>
      }
    >
      {PANEL_MSG.generatedPassword}
      {importOffered && (
        <Box sx={{ mt: 0.5 }}>
          {"Moving from another panel? "}
          <Link component={RouterLink} to="/import" onClick={(e: MouseEvent) => onLeave(e, "/import")} sx={{ display: "inline-block", py: 1.5 }}>
            Import its users and settings
          </Link>
        </Box>
      )}
    </Alert>
  );
}

/**
 * The common layout: the grouped sidebar on wide screens; on phones a bottom bar with the status and the
 * menu toggle at the right, where a thumb reaches it. The page's own heading is the only title.
 */
export function Layout({ banner }: { banner?: ReactNode }) {
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up("md"), { noSsr: true });
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState<Leave | null>(null);
  const navigate = useNavigate();

  const go = (to: Leave) => {
    if (to === "logout") void logout();
    else navigate(to);
  };
  // Links navigate on their own; with unsaved edits the click is held until the user confirms.
  const onLeave = (e: MouseEvent, to: Leave) => {
    setOpen(false);
    if (unsaved.dirty) {
      e.preventDefault();
      setPending(to);
    } else if (to === "logout") {
      go(to);
    }
  };

  return (
    <Box sx={{ display: "flex", minHeight: "100vh" }}>
      {!wide && (
        <AppBar position="fixed" component="div" sx={{ top: "auto", bottom: 0, borderTop: "1px solid #000", borderBottom: 0 }}>
          <Toolbar sx={{ gap: 1.5, minHeight: BOTTOM_BAR, pb: "env(safe-area-inset-bottom)" }}>
            <PrecisionManufacturingIcon sx={{ color: factorio.orange }} aria-hidden />
            <Typography variant="body2" color="text.secondary">Server</Typography>
            <StatusBadge />
            <Box sx={{ flexGrow: 1 }} />
            <IconButton
              edge="end"
              color="inherit"
              aria-label="Open menu"
              onClick={() => setOpen(true)}
              sx={{ width: 52, height: 52 }}
            >
              <MenuIcon />
            </IconButton>
          </Toolbar>
        </AppBar>
      )}
      <Drawer
        variant={wide ? "permanent" : "temporary"}
        anchor={wide ? "left" : "right"}
        open={wide || open}
        onClose={() => setOpen(false)}
        // Not kept mounted while closed: on a phone the hidden menu would cost the first render after signing in.
        ModalProps={{ keepMounted: false }}
        sx={{ width: wide ? DRAWER_WIDTH : undefined, flexShrink: 0, "& .MuiDrawer-paper": { width: DRAWER_WIDTH } }}
      >
        <Sidebar onLeave={onLeave} />
      </Drawer>
      <Box
        component="main"
        sx={{ flexGrow: 1, minWidth: 0, p: { xs: 1.5, sm: 3 }, pb: { xs: `${BOTTOM_BAR + 24}px`, md: 3 } }}
      >
        {banner}
        <InstallBanner />
        <GeneratedPasswordPrompt onLeave={onLeave} />
        <Outlet />
      </Box>
      <ConfirmDialog
        open={pending !== null}
        title="Unsaved changes"
        message={PANEL_MSG.unsavedChanges}
        confirmLabel="Leave without saving"
        cancelLabel="Stay"
        danger
        onConfirm={() => {
          unsaved.dirty = false;
          if (pending) go(pending);
        }}
        onClose={() => setPending(null)}
      />
    </Box>
  );
}
