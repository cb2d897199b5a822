import { useEffect, useState } from "react";
import {
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from "@mui/material";
import type { PortalModInfo, PortalRelease } from "../../../../shared/api.ts";
import { modsApi } from "../../api/mods.ts";
import { Compatibility, shortVersion } from "./ModsTable.tsx";

/** 'Select Version': the releases of one mod, newest first; only those that fit the game install. */
export function SelectVersion(
  props: {
    mod: string | null;
    onClose: () => void;
    onInstall: (r: PortalRelease, info: PortalModInfo) => void;
  },
) {
  const { mod, onClose, onInstall } = props;
  const [info, setInfo] = useState<PortalModInfo | null>(null);
  useEffect(() => {
    setInfo(null);
    if (!mod) return;
    let live = true;
    modsApi.portal.info(mod).then((i) => live && setInfo(i), () => live && onClose());
    return () => {
      live = false;
    };
  }, [mod, onClose]);

  return (
    <Dialog
      open={mod !== null}
      onClose={onClose}
      aria-labelledby="select-version-title"
      maxWidth="sm"
      fullWidth
    >
      <DialogTitle id="select-version-title">Select Version</DialogTitle>
      <DialogContent>
        {!info
          ? (
            <Box sx={{ display: "grid", placeItems: "center", py: 4 }}>
              <CircularProgress aria-label="Loading releases" />
            </Box>
          )
          : (
            <>
              <Typography sx={{ mb: 1.5 }}>
                <b>{info.title}</b>{" "}
                <Typography component="span" color="text.secondary">
                  ({info.name}, by {info.owner})
                </Typography>
              </Typography>
              <TableContainer>
                <Table size="small" aria-label="Releases">
                  <TableHead>
                    <TableRow>
                      <TableCell>Version</TableCell>
                      <TableCell>Factorio</TableCell>
                      <TableCell sx={{ display: { xs: "none", sm: "table-cell" } }}>Released</TableCell>
                      <TableCell aria-label="Install" />
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {info.releases.map((r) => (
                      <TableRow key={r.download_url}>
                        <TableCell>{shortVersion(r.version)}</TableCell>
                        <TableCell>
                          <Box sx={{ display: "flex", alignItems: "center", gap: 0.75 }}>
                            {shortVersion(r.info_json.factorio_version, 2)}{" "}
                            <Compatibility ok={r.compatibility} small />
                          </Box>
                        </TableCell>
                        <TableCell sx={{ display: { xs: "none", sm: "table-cell" } }}>
                          {r.released_at.slice(0, 10)}
                        </TableCell>
                        <TableCell align="right">
                          <Button
                            size="small"
                            disabled={!r.compatibility}
                            onClick={() => onInstall(r, info)}
                            aria-label={`Install ${info.name} ${shortVersion(r.version)}`}
                          >
                            Install
                          </Button>
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
            </>
          )}
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose}>Cancel</Button>
      </DialogActions>
    </Dialog>
  );
}
