import { lazy, type ReactNode, Suspense, useEffect } from "react";
import { FIRST_SERVER } from "../../shared/servers.ts";
import { BrowserRouter, Navigate, Route, Routes, useParams } from "react-router-dom";
import { Box, CircularProgress, CssBaseline, ThemeProvider } from "@mui/material";
import { theme } from "./theme.ts";
import { RequireAuth } from "./components/RequireAuth.tsx";
import { Flash } from "./components/Flash.tsx";
import { useSnapshot } from "valtio";
import { checkSession, session } from "./state/session.ts";
import { SERVER_PAGES } from "./state/current.ts";
import { serverList, several } from "./state/servers.ts";
// The sign-in page is part of the first script: a cold load of /login must not wait for a second round
// trip. The signed-in frame (sidebar, banners) and the pages load on demand.
import Login from "./pages/Login/Login.tsx";
import { chromeModule, controlsModule, layoutModule, lazyReady, preloadFrame } from "./preload.ts";

const Layout = lazyReady(layoutModule, (m) => m.Layout);
const ConnectionBanner = lazyReady(chromeModule, (m) => m.ConnectionBanner);
const OpenFromNotifications = lazyReady(chromeModule, (m) => m.OpenFromNotifications);
const UpdatePrompt = lazyReady(chromeModule, (m) => m.UpdatePrompt);

// Pages load on demand, so the first paint only needs the shell.
const Users = lazy(() => import("./pages/Users/Users.tsx"));
const Saves = lazy(() => import("./pages/Saves/Saves.tsx"));
const Mods = lazy(() => import("./pages/Mods/Mods.tsx"));
const Help = lazy(() => import("./pages/Help/Help.tsx"));
const NotFound = lazy(() => import("./pages/NotFound/NotFound.tsx"));
const ServerSettings = lazy(() => import("./pages/ServerSettings/ServerSettings.tsx"));
const GameSettings = lazy(() => import("./pages/GameSettings/GameSettings.tsx"));
const Players = lazy(() => import("./pages/Players/Players.tsx"));
const Controls = lazyReady(controlsModule, (m) => m.default);
const Console = lazy(() => import("./pages/Console/Console.tsx"));
const Logs = lazy(() => import("./pages/Logs/Logs.tsx"));
const Notifications = lazy(() => import("./pages/Notifications/Notifications.tsx"));
const Backups = lazy(() => import("./pages/Backups/Backups.tsx"));
const Schedules = lazy(() => import("./pages/Schedules/Schedules.tsx"));
const PlayerHistory = lazy(() => import("./pages/PlayerHistory/PlayerHistory.tsx"));
const Activity = lazy(() => import("./pages/Activity/Activity.tsx"));
const Account = lazy(() => import("./pages/Account/Account.tsx"));
const Import = lazy(() => import("./pages/Import/Import.tsx"));
const Https = lazy(() => import("./pages/Https/Https.tsx"));
const Overview = lazy(() => import("./pages/Servers/Overview.tsx"));
const ServersAdmin = lazy(() => import("./pages/Servers/ServersAdmin.tsx"));

function Loading() {
  return (
    <Box sx={{ display: "grid", placeItems: "center", minHeight: "40vh" }}>
      <CircularProgress aria-label="Loading" />
    </Box>
  );
}

/**
 * The home page: Controls of the one server, or the overview once there are several. A user whose one
 * server is not server 1 (a role on that server only) goes to its Controls.
 */
function Home() {
  const { list } = useSnapshot(serverList);
  if (several(list)) return <Navigate to="/servers" replace />;
  if (list?.length === 1 && list[0].id !== FIRST_SERVER) {
    return <Navigate to={`/servers/${list[0].id}`} replace />;
  }
  return <Controls />;
}

/** A server's page under /servers/{id}: the id is a whole number, or there is no such page. */
function OfServer({ children }: { children: ReactNode }) {
  const { server } = useParams();
  return /^[1-9]\d*$/.test(server ?? "") ? children : <NotFound />;
}

/**
 * The page routes inside the layout. An area replaces its placeholder with its page. A server's page
 * (SERVER_PAGES) is also served as /servers/{id}/page for server id; its address here is server 1's.
 */
export const PAGE_ROUTES: { path: string; element: ReactNode }[] = [
  { path: "/", element: <Home /> },
  {
    path: "/servers/:server",
    element: (
      <OfServer>
        <Controls />
      </OfServer>
    ),
  },
  { path: "/servers", element: <Overview /> },
  { path: "/settings/servers", element: <ServersAdmin /> },
  { path: "/saves", element: <Saves /> },
  { path: "/mods", element: <Mods /> },
  { path: "/backups", element: <Backups /> },
  { path: "/schedules", element: <Schedules /> },
  { path: "/server-settings", element: <ServerSettings /> },
  { path: "/players", element: <Players /> },
  { path: "/players/history", element: <PlayerHistory /> },
  { path: "/game-settings", element: <GameSettings /> },
  { path: "/console", element: <Console /> },
  { path: "/logs", element: <Logs /> },
  { path: "/user-management", element: <Users /> },
  { path: "/activity", element: <Activity /> },
  { path: "/settings/https", element: <Https /> },
  { path: "/account", element: <Account /> },
  { path: "/notifications", element: <Notifications /> },
  { path: "/help", element: <Help /> },
  { path: "/import", element: <Import /> },
];

/** The same page of another server: /saves is also /servers/{id}/saves. */
function serverRoutes(r: { path: string; element: ReactNode }) {
  if (r.path === "/" || !(SERVER_PAGES as readonly string[]).includes(r.path)) return [];
  return [{ path: `/servers/:server${r.path}`, element: <OfServer>{r.element}</OfServer> }];
}

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/login" element={<Login />} />
        <Route
          element={
            <RequireAuth>
              <Layout
                banner={
                  <Suspense fallback={null}>
                    <ConnectionBanner />
                  </Suspense>
                }
              />
            </RequireAuth>
          }
        >
          {PAGE_ROUTES.flatMap((r) => [r, ...serverRoutes(r)]).map((r) => (
            <Route
              key={r.path}
              path={r.path}
              element={<Suspense fallback={<Loading />}>{r.element}</Suspense>}
            />
          ))}
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </Suspense>
  );
}

/**
 * The app's router. Signed in, navigations are transitions (React Router's default): a page whose code is
 * still arriving leaves the last page up until it can show, where a plain update would show its loading
 * circle and React would then hold the page back ~300 ms so the circle does not flicker. Signed out they
 * are plain updates, so the one that matters there, signing in, renders Controls at once: a transition
 * renders it in slices, yielding to the browser every few milliseconds, which on a phone made signing in
 * ~200 ms slower (bench/login.mjs). Signing in navigates in the same update that marks the session signed
 * in, so it still goes through the listener the router had while signed out.
 */
export function PanelRouter({ children }: { children: ReactNode }) {
  const { state } = useSnapshot(session);
  return <BrowserRouter useTransitions={state === "signedIn" ? undefined : false}>{children}</BrowserRouter>;
}

export function App() {
  useEffect(() => {
    // Anywhere but the sign-in page the visitor is probably signed in: fetch the frame alongside the check.
    if (location.pathname !== "/login") preloadFrame();
    void checkSession();
  }, []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <PanelRouter>
        <AppRoutes />
        <Suspense fallback={null}>
          <OpenFromNotifications />
        </Suspense>
      </PanelRouter>
      <Flash />
      <Suspense fallback={null}>
        <UpdatePrompt />
      </Suspense>
    </ThemeProvider>
  );
}
