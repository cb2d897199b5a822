import { useState, type ReactNode } from "react";
import { NavLink, Outlet, useLocation } from "react-router-dom";
import {
  AppBar,
  Box,
  Divider,
  Drawer,
  IconButton,
  List,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  Toolbar,
  Typography,
  useMediaQuery,
} from "@mui/material";
import { useTheme } from "@mui/material/styles";
import MenuIcon from "@mui/icons-material/Menu";
import LogoutIcon from "@mui/icons-material/Logout";
import PrecisionManufacturingIcon from "@mui/icons-material/PrecisionManufacturing";
import { useSnapshot } from "valtio";
import { NAV } from "../nav.tsx";
import { StatusBadge } from "./StatusBadge.tsx";
import { logout, session } from "../state/session.ts";
import { factorio } from "../theme.ts";
import { type Role, roleAtLeast } from "../../../shared/api.ts";

const DRAWER_WIDTH = 248;

function Brand() {
  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
      <PrecisionManufacturingIcon sx={{ color: factorio.orange }} />
      <Typography variant="h6" component="span" noWrap>Factorio Panel</Typography>
    </Box>
  );
}

function Sidebar({ onNavigate }: { onNavigate: () => void }) {
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
      <List component="nav" aria-label="Main" sx={{ flexGrow: 1, py: 0.5 }}>
        {NAV.filter((item) => roleAtLeast((user?.role as Role | undefined) ?? "admin", item.role ?? "viewer")).map((item) => (
          <ListItemButton key={item.to} component={NavLink} to={item.to} end={item.to === "/" || item.end === true} onClick={onNavigate}>
            <ListItemIcon sx={{ minWidth: 38 }}>{item.icon}</ListItemIcon>
            <ListItemText primary={item.label} />
          </ListItemButton>
        ))}
      </List>
      <Divider />
      <List>
        <ListItemButton onClick={() => void logout()}>
          <ListItemIcon sx={{ minWidth: 38 }}><LogoutIcon /></ListItemIcon>
          <ListItemText primary="Logout" secondary={user ? `Signed in as ${user.username} (${user.role})` : undefined} />
        </ListItemButton>
      </List>
    </Box>
  );
}

/** The common layout: sidebar on wide screens, a menu toggle on small ones, the page beside it. */
export function Layout({ banner }: { banner?: ReactNode }) {
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up("md"), { noSsr: true });
  const [open, setOpen] = useState(false);
  const location = useLocation();
  const current = NAV.find((n) => (n.to === "/" ? location.pathname === "/" : location.pathname.startsWith(n.to)));

  return (
    <Box sx={{ display: "flex", minHeight: "100vh" }}>
      {!wide && (
        <AppBar position="fixed">
          <Toolbar sx={{ gap: 1 }}>
            <IconButton edge="start" color="inherit" aria-label="Open menu" onClick={() => setOpen(true)}>
              <MenuIcon />
            </IconButton>
            <Typography variant="h6" component="span" noWrap sx={{ flexGrow: 1 }}>
              {current?.label ?? "Factorio Panel"}
            </Typography>
            <StatusBadge />
          </Toolbar>
        </AppBar>
      )}
      <Drawer
        variant={wide ? "permanent" : "temporary"}
        open={wide || open}
        onClose={() => setOpen(false)}
        ModalProps={{ keepMounted: true }}
        sx={{ width: wide ? DRAWER_WIDTH : undefined, flexShrink: 0, "& .MuiDrawer-paper": { width: DRAWER_WIDTH } }}
      >
        <Sidebar onNavigate={() => setOpen(false)} />
      </Drawer>
      <Box component="main" sx={{ flexGrow: 1, minWidth: 0, p: { xs: 1.5, sm: 3 }, pt: { xs: 9, md: 3 } }}>
        {banner}
        <Outlet />
      </Box>
    </Box>
  );
}
