import { useEffect, useState } from "react";
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Alert,
  Box,
  Chip,
  CircularProgress,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from "@mui/material";
import ExpandMoreIcon from "@mui/icons-material/ExpandMore";
import { Page } from "../../components/Page.tsx";
import { settingsApi } from "../../api/settings.ts";
import type { ConfigGroups } from "../../../../shared/settings.ts";
import { ApiError } from "../../api/client.ts";
import { isClientOnlyConfigSection } from "../../../../shared/factorio.ts";

function Group({ name, entries }: { name: string; entries: Record<string, string> }) {
  const clientOnly = isClientOnlyConfigSection(name);
  const rows = Object.entries(entries);
  const headingId = `config-${name}`;
  return (
    <Accordion defaultExpanded={!clientOnly} disableGutters slotProps={{ heading: { component: "h2" } }}>
      <AccordionSummary expandIcon={<ExpandMoreIcon />} id={headingId}>
        <Box sx={{ display: "flex", alignItems: "center", gap: 1.5, flexWrap: "wrap" }}>
          <Typography variant="h6" component="span">{name}</Typography>
          {clientOnly && <Chip size="small" label="game client only" variant="outlined" />}
        </Box>
      </AccordionSummary>
      <AccordionDetails>
        {rows.length === 0 ? <Typography color="text.secondary">--</Typography> : (
          <TableContainer>
            <Table size="small" aria-labelledby={headingId}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: "40%" }}>Key</TableCell>
                  <TableCell>Value</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map(([key, value]) => (
                  <TableRow key={key}>
                    <TableCell sx={{ wordBreak: "break-word" }}>{key}</TableCell>
                    <TableCell sx={{ fontFamily: "monospace", wordBreak: "break-all" }}>{value}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </AccordionDetails>
    </Accordion>
  );
}

export default function GameSettings() {
  const [groups, setGroups] = useState<ConfigGroups | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    // A missing config.ini (a game that never ran) is a state to explain on the page, not an error flash.
    settingsApi.config({ quiet: true }).then(setGroups, (e: unknown) => {
      setProblem(e instanceof ApiError ? e.message : "The game's config.ini could not be read.");
    });
  }, []);

  return (
    <Page title="Game Settings">
      <Typography color="text.secondary">
        The game's config.ini, read-only. Sections only the game client uses are collapsed.
      </Typography>
      {problem && <Alert severity="info">{problem}</Alert>}
      {!groups && !problem && <CircularProgress aria-label="Loading" />}
      {groups && Object.keys(groups).length === 0 && (
        <Alert severity="info">config.ini has no sections.</Alert>
      )}
      {groups && (
        <Box>
          {Object.entries(groups).map(([name, entries]) => (
            <Group key={name} name={name} entries={entries} />
          ))}
        </Box>
      )}
    </Page>
  );
}
