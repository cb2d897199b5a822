import { Typography } from "@mui/material";
import { Page, Panel } from "../../components/Page.tsx";

/** Stands in for a page whose issue has not landed yet. */
export default function Placeholder({ title }: { title: string }) {
  return (
    <Page title={title}>
      <Panel title="Coming">
        <Typography color="text.secondary">This page is coming in a later release of the panel.</Typography>
      </Panel>
    </Page>
  );
}
