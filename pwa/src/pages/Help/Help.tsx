import { Link, Stack, Typography } from "@mui/material";
import OpenInNewIcon from "@mui/icons-material/OpenInNew";
import { Page, Panel } from "../../components/Page.tsx";
import { FACTORIO_MULTIPLAYER_WIKI_URL, PROJECT_ISSUES_URL } from "../../project.ts";

export default function Help() {
  return (
    <Page title="Help">
      <Panel title="About">
        <Typography>
          Factorio Panel is an open-source web console for a Factorio dedicated (headless) server. Start and
          stop the game, manage saves and mods, edit the server settings, use the live console and read the
          logs, from a desktop browser or from your phone. It is not affiliated with Wube Software, the maker
          of Factorio.
        </Typography>
      </Panel>
      <Panel title="Bugs and help">
        <Stack spacing={1}>
          <Typography>
            Found a bug, or stuck? Look through the issue tracker, or open a new issue there.
          </Typography>
          <Link
            href={PROJECT_ISSUES_URL}
            target="_blank"
            rel="noopener noreferrer"
            sx={{ display: "inline-flex", gap: 0.5, alignItems: "center", minHeight: { xs: 44, md: "auto" } }}
          >
            Issue tracker <OpenInNewIcon fontSize="inherit" />
          </Link>
        </Stack>
      </Panel>
      <Panel title="Helpful resources">
        <Stack spacing={1}>
          <Typography>How multiplayer and dedicated servers work, from the Factorio wiki.</Typography>
          <Link
            href={FACTORIO_MULTIPLAYER_WIKI_URL}
            target="_blank"
            rel="noopener noreferrer"
            sx={{ display: "inline-flex", gap: 0.5, alignItems: "center", minHeight: { xs: 44, md: "auto" } }}
          >
            Factorio wiki: Multiplayer <OpenInNewIcon fontSize="inherit" />
          </Link>
        </Stack>
      </Panel>
    </Page>
  );
}
