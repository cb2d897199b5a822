import { Box, Card, CardContent, CardHeader, Typography } from "@mui/material";
import type { ReactNode } from "react";

/** A page: its title and its cards. */
export function Page(
  { title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode },
) {
  return (
    <Box component="section" sx={{ display: "grid", gap: 2.5 }}>
      <Box sx={{ display: "flex", alignItems: "center", gap: 2, flexWrap: "wrap" }}>
        <Typography variant="h4" component="h1" sx={{ flexGrow: 1 }}>{title}</Typography>
        {actions}
      </Box>
      {children}
    </Box>
  );
}

/** A framed panel with a title, like the game's windows. */
export function Panel(
  { title, children, action }: { title: string; children: ReactNode; action?: ReactNode },
) {
  return (
    <Card component="section" aria-label={title}>
      <CardHeader title={title} slotProps={{ title: { component: "h2" } }} action={action} />
      <CardContent sx={{ pt: 1 }}>{children}</CardContent>
    </Card>
  );
}
