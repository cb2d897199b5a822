// The sidebar links, in groups a newcomer can scan on a phone: the server itself, the world it runs, the
// people who play on it, and the panel. An area that adds a page adds its link to the group it belongs to.

import type { ReactNode } from "react";
import DashboardIcon from "@mui/icons-material/Dashboard";
import SaveIcon from "@mui/icons-material/Save";
import ExtensionIcon from "@mui/icons-material/Extension";
import SettingsIcon from "@mui/icons-material/Settings";
import TuneIcon from "@mui/icons-material/Tune";
import TerminalIcon from "@mui/icons-material/Terminal";
import ArticleIcon from "@mui/icons-material/Article";
import PeopleIcon from "@mui/icons-material/People";
import HelpIcon from "@mui/icons-material/Help";
import GroupsIcon from "@mui/icons-material/Groups";
import NotificationsIcon from "@mui/icons-material/Notifications";
import BackupIcon from "@mui/icons-material/Backup";
import ScheduleIcon from "@mui/icons-material/Schedule";
import HistoryIcon from "@mui/icons-material/History";
import AccountCircleIcon from "@mui/icons-material/AccountCircle";
import ManageSearchIcon from "@mui/icons-material/ManageSearch";
import HttpsIcon from "@mui/icons-material/Https";
import DnsIcon from "@mui/icons-material/Dns";
import type { Role } from "../../shared/api.ts";

export interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
  /** Highlight only on this exact path (a page with pages below it in the sidebar). */
  end?: boolean;
  /** The weakest role that sees the link (viewer when unset). */
  role?: Role;
}

export type NavGroupId = "server" | "world" | "players" | "panel";

export interface NavGroup {
  id: NavGroupId;
  label: string;
  items: NavItem[];
}

export const NAV_GROUPS: NavGroup[] = [
  {
    id: "server",
    label: "Server",
    items: [
      { to: "/", label: "Controls", icon: <DashboardIcon /> },
      { to: "/console", label: "Console", icon: <TerminalIcon /> },
      { to: "/logs", label: "Logs", icon: <ArticleIcon /> },
      { to: "/server-settings", label: "Server Settings", icon: <SettingsIcon /> },
      { to: "/schedules", label: "Schedules", icon: <ScheduleIcon /> },
    ],
  },
  {
    id: "world",
    label: "World",
    items: [
      { to: "/saves", label: "Saves", icon: <SaveIcon /> },
      { to: "/backups", label: "Backups", icon: <BackupIcon /> },
      { to: "/mods", label: "Mods", icon: <ExtensionIcon /> },
      { to: "/game-settings", label: "Game Settings", icon: <TuneIcon /> },
    ],
  },
  {
    id: "players",
    label: "Players",
    items: [
      { to: "/players", label: "Players", icon: <GroupsIcon />, end: true },
      { to: "/players/history", label: "Player history", icon: <HistoryIcon /> },
    ],
  },
  {
    id: "panel",
    label: "Panel",
    items: [
      { to: "/user-management", label: "Users", icon: <PeopleIcon />, role: "admin" },
      { to: "/activity", label: "Activity", icon: <ManageSearchIcon />, role: "admin" },
      { to: "/settings/https", label: "HTTPS", icon: <HttpsIcon />, role: "admin" },
      { to: "/settings/servers", label: "Servers", icon: <DnsIcon />, role: "admin" },
      { to: "/account", label: "Account", icon: <AccountCircleIcon /> },
      { to: "/notifications", label: "Notifications", icon: <NotificationsIcon /> },
      { to: "/help", label: "Help", icon: <HelpIcon /> },
    ],
  },
];

/** Every link, group by group. */
export const NAV: NavItem[] = NAV_GROUPS.flatMap((g) => g.items);
