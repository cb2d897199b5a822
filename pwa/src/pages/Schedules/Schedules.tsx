import { useCallback, useEffect, useState } from "react";
import { Box, Button, Chip, Collapse, IconButton, Stack, Tooltip, Typography } from "@mui/material";
import AddIcon from "@mui/icons-material/Add";
import EditIcon from "@mui/icons-material/Edit";
import ExpandLessIcon from "@mui/icons-material/ExpandLess";
import ExpandMoreIcon from "@mui/icons-material/ExpandMore";
import PlayArrowIcon from "@mui/icons-material/PlayArrow";
import RefreshIcon from "@mui/icons-material/Refresh";
import { Page, Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { DeleteButton } from "../../components/DeleteButton.tsx";
import { ReadOnly, ViewerNote } from "../../components/ReadOnly.tsx";
import { schedulesApi } from "../../api/backups.ts";
import { showFlash } from "../../state/flash.ts";
import {
  type Schedule,
  SCHEDULE_CONDITION_LABELS,
  type ScheduleRun,
  TASK_LABELS,
} from "../../../../shared/backups.ts";
import { ScheduleForm } from "./ScheduleForm.tsx";
import { formatRun } from "./format.ts";

const RESULT_COLOR: Record<ScheduleRun["result"], "success" | "error" | "warning" | "default" | "info"> = {
  ok: "success",
  failed: "error",
  missed: "warning",
  skipped: "default",
  running: "info",
};

function Runs({ runs }: { runs: Schedule["last_runs"] }) {
  if (runs.length === 0) return <Typography variant="body2" color="text.secondary">No runs yet.</Typography>;
  return (
    <Stack spacing={1}>
      {runs.map((r) => (
        <Box key={r.id} data-testid="run">
          <Box sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}>
            <Chip size="small" label={r.result} color={RESULT_COLOR[r.result]} />
            <Typography variant="body2">
              {`${r.started.replace("T", " ").slice(0, 19)} UTC · ${r.trigger}`}
            </Typography>
          </Box>
          {r.output && (
            <Box
              component="pre"
              sx={{
                m: 0,
                mt: 0.5,
                whiteSpace: "pre-wrap",
                wordBreak: "break-word",
                fontSize: "0.8rem",
                color: "text.secondary",
              }}
            >
              {r.output}
            </Box>
          )}
        </Box>
      ))}
    </Stack>
  );
}

function ScheduleCard({ s, onEdit, onDelete, onChanged }: {
  s: Schedule;
  onEdit: () => void;
  onDelete: () => void;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  async function run() {
    try {
      await schedulesApi.run(s.id);
      showFlash(`Schedule "${s.name}" started.`, "success");
      setOpen(true);
      // The run goes on in the background; its result shows up in the list.
      setTimeout(onChanged, 1500);
    } catch {
      // flashed by the client
    }
    onChanged();
  }
  const last = s.last_runs[0];
  return (
    <Panel
      title={s.name}
      action={
        <ReadOnly>
          <Box sx={{ display: "flex" }}>
            <Tooltip title="Run now">
              <IconButton aria-label={`Run ${s.name} now`} onClick={run} color="primary">
                <PlayArrowIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title="Edit">
              <IconButton aria-label={`Edit ${s.name}`} onClick={onEdit}>
                <EditIcon />
              </IconButton>
            </Tooltip>
            <DeleteButton title="Delete" label={`Delete ${s.name}`} onClick={onDelete} />
          </Box>
        </ReadOnly>
      }
    >
      <Stack spacing={1}>
        <Box sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}>
          <Typography sx={{ fontWeight: 700 }}>{s.description}</Typography>
          <Box component="code" sx={{ fontSize: "0.85rem", color: "text.secondary" }}>{s.cron}</Box>
          {!s.enabled && <Chip size="small" label="disabled" />}
        </Box>
        <Typography variant="body2" color="text.secondary">
          {SCHEDULE_CONDITION_LABELS[s.condition]} · {s.tasks.map((t) => TASK_LABELS[t.type]).join(" → ")}
        </Typography>
        {s.next_runs.length > 0 && (
          <Typography variant="body2">
            {`Next: ${s.next_runs.map(formatRun).join(" · ")} (${s.time_zone})`}
          </Typography>
        )}
        <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
          <Button
            color="secondary"
            size="small"
            onClick={() => setOpen(!open)}
            endIcon={open ? <ExpandLessIcon /> : <ExpandMoreIcon />}
            sx={{ minHeight: 44 }}
          >
            {`Last runs (${s.last_runs.length})`}
          </Button>
          {last && <Chip size="small" label={`last: ${last.result}`} color={RESULT_COLOR[last.result]} />}
        </Box>
        <Collapse in={open}>
          <Runs runs={s.last_runs} />
        </Collapse>
      </Stack>
    </Panel>
  );
}

export default function Schedules() {
  const [schedules, setSchedules] = useState<Schedule[]>([]);
  const [editing, setEditing] = useState<Schedule | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const [deleting, setDeleting] = useState<Schedule | null>(null);
  const load = useCallback(() => {
    schedulesApi.list({ quiet: true }).then(setSchedules, () => {});
  }, []);
  useEffect(() => {
    load();
    // Runs happen on the server's timetable: keep the list (next runs, results) fresh while the page is open.
    const timer = setInterval(load, 15_000);
    return () => clearInterval(timer);
  }, [load]);

  async function remove(s: Schedule) {
    try {
      await schedulesApi.remove(s.id);
      showFlash(`Schedule "${s.name}" deleted.`, "success");
    } catch {
      // flashed by the client
    }
    load();
  }

  return (
    <Page
      title="Schedules"
      actions={
        <Box sx={{ display: "flex", gap: 1 }}>
          <Tooltip title="Refresh">
            <IconButton aria-label="Refresh the list" onClick={load}>
              <RefreshIcon />
            </IconButton>
          </Tooltip>
          <ReadOnly>
            <Button
              startIcon={<AddIcon />}
              onClick={() => {
                setEditing(null);
                setFormOpen(true);
              }}
            >
              New schedule
            </Button>
          </ReadOnly>
        </Box>
      }
    >
      <ViewerNote />
      {schedules.length === 0 && (
        <Typography color="text.secondary">
          No schedules yet. A schedule runs tasks (warn players, save, back up, restart...) on a timetable.
        </Typography>
      )}
      <Box
        sx={{
          display: "grid",
          gap: 2.5,
          gridTemplateColumns: { xs: "1fr", lg: "1fr 1fr" },
          alignItems: "start",
        }}
      >
        {schedules.map((s) => (
          <ScheduleCard
            key={s.id}
            s={s}
            onChanged={load}
            onEdit={() => {
              setEditing(s);
              setFormOpen(true);
            }}
            onDelete={() => setDeleting(s)}
          />
        ))}
      </Box>
      <ScheduleForm open={formOpen} editing={editing} onClose={() => setFormOpen(false)} onSaved={load} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete schedule"
        message={deleting ? `Delete the schedule "${deleting.name}" and its run history?` : ""}
        confirmLabel="Delete"
        danger
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      />
    </Page>
  );
}
