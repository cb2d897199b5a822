import { Box, CircularProgress } from "@mui/material";
import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router-dom";
import { useSnapshot } from "valtio";
import { rememberReturn, session } from "../state/session.ts";

/**
 * Lets signed-in users through. Others go to /login, and the place they asked for is remembered so the
 * login can bring them back.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { state, endedBy, user } = useSnapshot(session);
  const location = useLocation();
  if (state === "unknown") {
    return (
      <Box sx={{ display: "grid", placeItems: "center", minHeight: "100vh" }}>
        <CircularProgress aria-label="Loading" />
      </Box>
    );
  }
  if (state === "signedOut" && endedBy === "logout") return <Navigate to="/login" replace />;
  if (state === "signedOut") {
    const from = location.pathname + location.search + location.hash;
    rememberReturn(from);
    return <Navigate to="/login" replace state={{ from }} />;
  }
  // The panel requires this admin to set up a second factor first: nothing else would answer anyway.
  if (user?.must_enrol && location.pathname !== "/account") return <Navigate to="/account" replace />;
  return <>{children}</>;
}
