// The sidebar links, in the spec's order. An area that adds a page adds its link here.

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

export interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
}

export const NAV: NavItem[] = [
  { to: "/", label: "Controls", icon: <DashboardIcon /> },
  { to: "/saves", label: "Saves", icon: <SaveIcon /> },
  { to: "/mods", label: "Mods", icon: <ExtensionIcon /> },
  { to: "/backups", label: "Backups", icon: <BackupIcon /> },
  { to: "/schedules", label: "Schedules", icon: <ScheduleIcon /> },
  { to: "/server-settings", label: "Server Settings", icon: <SettingsIcon /> },
  { to: "/players", label: "Players", icon: <GroupsIcon /> },
  { to: "/game-settings", label: "Game Settings", icon: <TuneIcon /> },
  { to: "/console", label: "Console", icon: <TerminalIcon /> },
  { to: "/logs", label: "Logs", icon: <ArticleIcon /> },
  { to: "/user-management", label: "Users", icon: <PeopleIcon /> },
  { to: "/notifications", label: "Notifications", icon: <NotificationsIcon /> },
  { to: "/help", label: "Help", icon: <HelpIcon /> },
];
