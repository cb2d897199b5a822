import { Link as RouterLink, useLocation } from "react-router-dom";
import { Button, Stack, Typography } from "@mui/material";
import { Page, Panel } from "../../components/Page.tsx";

export default function NotFound() {
  const location = useLocation();
  return (
    <Page title="Not Found">
      <Panel title="There is no such page">
        <Stack spacing={2} sx={{ alignItems: "flex-start" }}>
          <Typography>
            Nothing lives at <code>{location.pathname}</code>.
          </Typography>
          <Button component={RouterLink} to="/">Go to Controls</Button>
        </Stack>
      </Panel>
    </Page>
  );
}
