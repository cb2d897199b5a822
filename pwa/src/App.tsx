import { lazy, Suspense, useEffect, type ReactNode } from "react";
import { BrowserRouter, Route, Routes } from "react-router-dom";
import { Box, CircularProgress, CssBaseline, ThemeProvider } from "@mui/material";
import { theme } from "./theme.ts";
import { Layout } from "./components/Layout.tsx";
import { RequireAuth } from "./components/RequireAuth.tsx";
import { Flash } from "./components/Flash.tsx";
import { checkSession } from "./state/session.ts";
import { ConnectionBanner, OpenFromNotifications, UpdatePrompt } from "./components/AppChrome.tsx";

// Pages load on demand, so the first paint only needs the shell.
const Login = lazy(() => import("./pages/Login/Login.tsx"));
const Users = lazy(() => import("./pages/Users/Users.tsx"));
const Saves = lazy(() => import("./pages/Saves/Saves.tsx"));
const Mods = lazy(() => import("./pages/Mods/Mods.tsx"));
const Help = lazy(() => import("./pages/Help/Help.tsx"));
const NotFound = lazy(() => import("./pages/NotFound/NotFound.tsx"));
const ServerSettings = lazy(() => import("./pages/ServerSettings/ServerSettings.tsx"));
const GameSettings = lazy(() => import("./pages/GameSettings/GameSettings.tsx"));
const Players = lazy(() => import("./pages/Players/Players.tsx"));
const Controls = lazy(() => import("./pages/Controls/Controls.tsx"));
const Console = lazy(() => import("./pages/Console/Console.tsx"));
const Logs = lazy(() => import("./pages/Logs/Logs.tsx"));
const Notifications = lazy(() => import("./pages/Notifications/Notifications.tsx"));
const Backups = lazy(() => import("./pages/Backups/Backups.tsx"));
const Schedules = lazy(() => import("./pages/Schedules/Schedules.tsx"));

function Loading() {
  return (
    <Box sx={{ display: "grid", placeItems: "center", minHeight: "40vh" }}>
      <CircularProgress aria-label="Loading" />
    </Box>
  );
}

/** The page routes inside the layout. An area replaces its placeholder with its page. */
export const PAGE_ROUTES: { path: string; element: ReactNode }[] = [
  { path: "/", element: <Controls /> },
  { path: "/saves", element: <Saves /> },
  { path: "/mods", element: <Mods /> },
  { path: "/backups", element: <Backups /> },
  { path: "/schedules", element: <Schedules /> },
  { path: "/server-settings", element: <ServerSettings /> },
  { path: "/players", element: <Players /> },
  { path: "/game-settings", element: <GameSettings /> },
  { path: "/console", element: <Console /> },
  { path: "/logs", element: <Logs /> },
  { path: "/user-management", element: <Users /> },
  { path: "/notifications", element: <Notifications /> },
  { path: "/help", element: <Help /> },
];

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/login" element={<Login />} />
        <Route element={<RequireAuth><Layout banner={<ConnectionBanner />} /></RequireAuth>}>
          {PAGE_ROUTES.map((r) => (
            <Route key={r.path} path={r.path} element={<Suspense fallback={<Loading />}>{r.element}</Suspense>} />
          ))}
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </Suspense>
  );
}

export function App() {
  useEffect(() => {
    void checkSession();
  }, []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <BrowserRouter>
        <AppRoutes />
        <OpenFromNotifications />
      </BrowserRouter>
      <Flash />
      <UpdatePrompt />
    </ThemeProvider>
  );
}
