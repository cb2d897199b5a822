import {
  type MouseEvent,
  type ReactNode,
  type RefObject,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
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
import KeyboardArrowDownIcon from "@mui/icons-material/KeyboardArrowDown";
import PrecisionManufacturingIcon from "@mui/icons-material/PrecisionManufacturing";
import { useSnapshot } from "valtio";
import { NAV_GROUPS } from "../nav.tsx";
import { transferApi } from "../api/transfer.ts";
import { StatusBadge } from "./StatusBadge.tsx";
import { ServerSwitcher } from "./ServerSwitcher.tsx";
import { InstallBanner } from "./InstallBanner.tsx";
import { ConfirmDialog } from "./ConfirmDialog.tsx";
import { logout, session } from "../state/session.ts";
import { unsaved } from "../state/unsaved.ts";
import { current, serverPageOf, serverPath } from "../state/current.ts";
import { loadServers, serverList, several } from "../state/servers.ts";
import { showServer } from "../state/server.ts";
import { factorio } from "../theme.ts";
import { type Role, roleAtLeast } from "../../../shared/api.ts";
import { PANEL_MSG } from "../../../shared/messages.ts";

const DRAWER_WIDTH = 248;
/** On phones the menu has two columns of links, and leaves a strip of the page to tap to close it. */
const PHONE_DRAWER_WIDTH = "min(330px, 86vw)";
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

/**
 * Whether `box` has more below what it shows, kept up to date as it scrolls or changes size. The sidebar
 * shows a hint then: its last links were below the fold without a sign that they were there.
 */
function useMoreBelow(box: RefObject<HTMLElement | null>, content: unknown): [boolean, () => void] {
  const [more, setMore] = useState(false);
  const check = useCallback(() => {
    const el = box.current;
    setMore(!!el && el.scrollHeight - el.scrollTop - el.clientHeight > 4);
  }, [box]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    for (const child of el.children) observer.observe(child);
    return () => observer.disconnect();
  }, [box, check, content]);
  return [more, check];
}

/**
 * The links, grouped. On wide screens one compact column (every page in view at 800 px high); on phones
 * two columns of thumb-sized (44 px) links, so the whole menu fits a phone's height. Where it still does
 * not fit (a short window, a phone held sideways) a "More below" hint shows at the bottom.
 */
function Sidebar({ onLeave, phone }: { onLeave: (e: MouseEvent, to: Leave) => void; phone: boolean }) {
  const { user } = useSnapshot(session);
  const { server } = useSnapshot(current);
  const { list } = useSnapshot(serverList);
  const many = several(list);
  const { pathname } = useLocation();
  const nav = useRef<HTMLElement>(null);
  // The links differ by role: measured again when it is known or changes.
  const [moreBelow, checkMore] = useMoreBelow(nav, user?.role);
  // The current page's link in view, also when it is one of the last.
  useEffect(() => {
    nav.current?.querySelector(".active")?.scrollIntoView({ block: "nearest" });
  }, [pathname]);
  const groups = NAV_GROUPS
    .map((group) => ({
      ...group,
      items: group.items
        .filter((item) => roleAtLeast((user?.role as Role | undefined) ?? "admin", item.role ?? "viewer"))
        // A server's pages lead to the server shown; the panel's own are the same for all.
        .map((item) => group.id === "panel" ? item : { ...item, to: serverPath(server, item.to, many) }),
    }))
    .filter((group) => group.items.length > 0);
  return (
    <Box sx={{ display: "flex", flexDirection: "column", height: "100%" }}>
      {/* With the switcher (a taller control than the badge) the header is tighter: the links still fit 800 px. */}
      <Box sx={{ px: 2, py: phone ? 1.5 : many ? 1.25 : 2, display: "grid", gap: many ? 0.75 : 1.2 }}>
        <Brand />
        {many
          ? <ServerSwitcher onLeave={onLeave} admin={(user?.role ?? "admin") === "admin"} />
          : (
            <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
              <Typography variant="body2" color="text.secondary">Server</Typography>
              <StatusBadge />
            </Box>
          )}
      </Box>
      <Divider />
      <Box sx={{ position: "relative", flexGrow: 1, minHeight: 0, display: "flex" }}>
        <Box
          component="nav"
          ref={nav}
          aria-label="Main"
          onScroll={checkMore}
          sx={{ flexGrow: 1, overflowY: "auto", pb: 0.5, scrollPaddingBottom: 36 }}
        >
          {groups.map((group) => (
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
                  sx={{
                    gridColumn: "1 / -1",
                    bgcolor: "transparent",
                    color: factorio.muted,
                    lineHeight: "24px",
                    mt: 0.5,
                    fontWeight: 700,
                    textTransform: "uppercase",
                    fontSize: "0.72rem",
                    letterSpacing: 0.8,
                  }}
                >
                  {group.label}
                </ListSubheader>
              }
              sx={[
                { py: 0 },
                phone && { display: "grid", gridTemplateColumns: "1fr 1fr", columnGap: 0.5, px: 0.5 },
              ]}
            >
              {group.items.map((item) => (
                <ListItemButton
                  key={item.to}
                  component={NavLink}
                  to={item.to}
                  end={item.to === "/" || /^\/servers\/\d+$/.test(item.to) || item.end === true}
                  onClick={(e: MouseEvent) => onLeave(e, item.to)}
                  sx={phone ? { px: 1, borderRadius: 0.5 } : { py: "5px" }}
                >
                  <ListItemIcon sx={{ minWidth: phone ? 30 : 36, "& svg": { fontSize: 20 } }}>
                    {item.icon}
                  </ListItemIcon>
                  <ListItemText
                    primary={item.label}
                    sx={{ my: 0 }}
                    slotProps={{ primary: { variant: "body2", sx: { lineHeight: phone ? 1.2 : "20px" } } }}
                  />
                </ListItemButton>
              ))}
            </List>
          ))}
        </Box>
        {moreBelow && (
          // A cue for the eye; the links themselves are all in the list for the keyboard and screen readers.
          <Box
            aria-hidden
            data-testid="nav-more-below"
            onClick={() => nav.current?.scrollBy({ top: nav.current.clientHeight * 0.8, behavior: "smooth" })}
            sx={{
              position: "absolute",
              left: 0,
              right: 0,
              bottom: 0,
              pt: 3,
              pb: 0.5,
              display: "flex",
              justifyContent: "center",
              alignItems: "center",
              gap: 0.5,
              cursor: "pointer",
              fontSize: "0.75rem",
              fontWeight: 700,
              color: factorio.title,
              background: "linear-gradient(rgba(38,37,38,0), #262526 60%)",
            }}
          >
            More below <KeyboardArrowDownIcon fontSize="small" />
          </Box>
        )}
      </Box>
      <Divider />
      <List component="div" dense={!phone} sx={{ py: phone ? 0.5 : 0 }}>
        <ListItemButton onClick={(e) => onLeave(e, "logout")}>
          <ListItemIcon sx={{ minWidth: 36, "& svg": { fontSize: 20 } }}>
            <LogoutIcon />
          </ListItemIcon>
          <ListItemText
            primary="Logout"
            secondary={user ? `Signed in as ${user.username} (${user.role})` : undefined}
            sx={{ my: 0 }}
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
          <Link
            component={RouterLink}
            to="/import"
            onClick={(e: MouseEvent) => onLeave(e, "/import")}
            sx={{ display: "inline-block", py: 1.5 }}
          >
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
  const { pathname } = useLocation();
  const { user } = useSnapshot(session);
  const { list } = useSnapshot(serverList);
  const many = several(list);
  // The server shown comes from the address, set before the pages' effects ask the API for anything.
  const shownHere = serverPageOf(pathname)?.server;
  useLayoutEffect(() => {
    if (shownHere !== undefined) showServer(shownHere);
  }, [shownHere]);
  useEffect(() => {
    void loadServers();
  }, [user?.username]);
  const { server } = useSnapshot(current);

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
        <AppBar
          position="fixed"
          component="div"
          sx={{ top: "auto", bottom: 0, borderTop: "1px solid #000", borderBottom: 0 }}
        >
          <Toolbar sx={{ gap: 1.5, minHeight: BOTTOM_BAR, pb: "env(safe-area-inset-bottom)" }}>
            <PrecisionManufacturingIcon sx={{ color: factorio.orange }} aria-hidden />
            {many
              ? (
                <Box sx={{ minWidth: 0, display: "flex", gap: 1, alignItems: "center" }}>
                  <ServerSwitcher onLeave={onLeave} admin={(user?.role ?? "admin") === "admin"} />
                  <StatusBadge />
                </Box>
              )
              : (
                <>
                  <Typography variant="body2" color="text.secondary">Server</Typography>
                  <StatusBadge />
                </>
              )}
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
        sx={{
          width: wide ? DRAWER_WIDTH : undefined,
          flexShrink: 0,
          "& .MuiDrawer-paper": { width: wide ? DRAWER_WIDTH : PHONE_DRAWER_WIDTH },
        }}
      >
        <Sidebar onLeave={onLeave} phone={!wide} />
      </Drawer>
      <Box
        component="main"
        sx={{ flexGrow: 1, minWidth: 0, p: { xs: 1.5, sm: 3 }, pb: { xs: `${BOTTOM_BAR + 24}px`, md: 3 } }}
      >
        {banner}
        <InstallBanner />
        <GeneratedPasswordPrompt onLeave={onLeave} />
        {/* A page of another server is a new page: nothing of the last server's stays in it. */}
        <Outlet key={shownHere ?? server} />
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
