import { useEffect, useState } from "react";
import {
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  IconButton,
  MenuItem,
  Paper,
  Stack,
  Switch,
  TextField,
  Tooltip,
  Typography,
  useMediaQuery,
} from "@mui/material";
import { useTheme } from "@mui/material/styles";
import AddIcon from "@mui/icons-material/Add";
import ArrowDownwardIcon from "@mui/icons-material/ArrowDownward";
import ArrowUpwardIcon from "@mui/icons-material/ArrowUpward";
import { DeleteButton } from "../../components/DeleteButton.tsx";
import { schedulesApi } from "../../api/backups.ts";
import { ApiError } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import {
  BACKUP_INCLUDES,
  type BackupInclude,
  type Schedule,
  SCHEDULE_CONDITION_LABELS,
  SCHEDULE_CONDITIONS,
  type ScheduleCondition,
  type ScheduleInput,
  scheduleProblem,
  type ScheduleTask,
  TASK_LABELS,
  TASK_TYPES,
  type TaskType,
} from "../../../../shared/backups.ts";
import { formatRun } from "./format.ts";

const INCLUDE_SHORT: Record<BackupInclude, string> = {
  mods: "Mods folder",
  "mod-list": "Mod list",
  settings: "Server settings",
  players: "Player lists",
};

const EMPTY: ScheduleInput = {
  name: "",
  cron: "0 4 * * *",
  condition: "always",
  enabled: true,
  run_missed: false,
  tasks: [
    { type: "warn", delay_s: 0, text: "The server restarts in {time}", countdown_s: 300 },
    { type: "backup", delay_s: 0 },
    { type: "restart", delay_s: 0 },
  ],
};

function CronPreview({ cron }: { cron: string }) {
  const [preview, setPreview] = useState<
    { description: string; next_runs: string[]; time_zone: string } | null
  >(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => {
      schedulesApi.preview(cron).then(
        (p) => {
          setPreview(p);
          setError(null);
        },
        (e) => {
          setPreview(null);
          setError(e instanceof ApiError ? e.message : String(e));
        },
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [cron]);
  if (error) return <Typography color="error" variant="body2" role="alert">{error}</Typography>;
  if (!preview) return null;
  return (
    <Box data-testid="cron-preview">
      <Typography sx={{ fontWeight: 700 }}>{preview.description}</Typography>
      <Typography variant="body2" color="text.secondary">
        {`Next: ${preview.next_runs.map((r) => formatRun(r)).join(" · ")} (${preview.time_zone})`}
      </Typography>
    </Box>
  );
}

function TaskEditor({ task, index, count, onChange, onMove, onRemove }: {
  task: ScheduleTask;
  index: number;
  count: number;
  onChange: (t: ScheduleTask) => void;
  onMove: (dir: -1 | 1) => void;
  onRemove: () => void;
}) {
  const set = (patch: Partial<ScheduleTask>) => onChange({ ...task, ...patch });
  return (
    <Paper variant="outlined" sx={{ p: 1.5 }} data-testid="task">
      <Box sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}>
        <Typography sx={{ fontWeight: 700, minWidth: "1.5rem" }}>{index + 1}.</Typography>
        <TextField
          select
          label="Task"
          value={task.type}
          onChange={(e) => set({ type: e.target.value as TaskType })}
          sx={{ minWidth: 160, flex: "1 1 160px" }}
          size="small"
        >
          {TASK_TYPES.map((t) => <MenuItem key={t} value={t}>{TASK_LABELS[t]}</MenuItem>)}
        </TextField>
        <TextField
          label="Delay (s)"
          type="number"
          size="small"
          value={task.delay_s}
          onChange={(e) => set({ delay_s: Number(e.target.value) })}
          sx={{ width: 110 }}
        />
        <Box sx={{ ml: "auto", display: "flex" }}>
          <Tooltip title="Move up">
            <span>
              <IconButton
                aria-label={`Move task ${index + 1} up`}
                disabled={index === 0}
                onClick={() => onMove(-1)}
              >
                <ArrowUpwardIcon />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title="Move down">
            <span>
              <IconButton
                aria-label={`Move task ${index + 1} down`}
                disabled={index === count - 1}
                onClick={() => onMove(1)}
              >
                <ArrowDownwardIcon />
              </IconButton>
            </span>
          </Tooltip>
          <DeleteButton title="Remove task" label={`Remove task ${index + 1}`} onClick={onRemove} />
        </Box>
      </Box>
      {(task.type === "warn" || task.type === "command") && (
        <Box sx={{ display: "flex", gap: 1, mt: 1.5, flexWrap: "wrap" }}>
          <TextField
            label={task.type === "warn" ? "Chat text ({time} = time left)" : "Console command"}
            size="small"
            value={task.text ?? ""}
            onChange={(e) =>
              set({ text: e.target.value })}
            sx={{ flex: "1 1 220px" }}
          />
          {task.type === "warn" && (
            <TextField
              label="Countdown (s)"
              type="number"
              size="small"
              value={task.countdown_s ?? 0}
              onChange={(e) => set({ countdown_s: Number(e.target.value) })}
              sx={{ width: 140 }}
            />
          )}
        </Box>
      )}
      {task.type === "backup" && (
        <FormGroup row aria-label={`Task ${index + 1} also includes`} sx={{ mt: 1 }}>
          {BACKUP_INCLUDES.map((i) => (
            <FormControlLabel
              key={i}
              control={
                <Checkbox
                  checked={task.include?.includes(i) ?? false}
                  onChange={(e) =>
                    set({
                      include: e.target.checked
                        ? [...(task.include ?? []), i]
                        : (task.include ?? []).filter((x) => x !== i),
                    })}
                />
              }
              label={INCLUDE_SHORT[i]}
            />
          ))}
        </FormGroup>
      )}
      <FormControlLabel
        sx={{ mt: 0.5 }}
        control={
          <Checkbox
            checked={task.continue_on_failure === true}
            onChange={(e) => set({ continue_on_failure: e.target.checked })}
          />
        }
        label="Continue on failure"
      />
    </Paper>
  );
}

export function ScheduleForm({ open, editing, onClose, onSaved }: {
  open: boolean;
  editing: Schedule | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down("sm"));
  const [form, setForm] = useState<ScheduleInput>(EMPTY);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    setProblem(null);
    setForm(
      editing
        ? {
          name: editing.name,
          cron: editing.cron,
          condition: editing.condition,
          enabled: editing.enabled,
          run_missed: editing.run_missed,
          tasks: editing.tasks,
        }
        : EMPTY,
    );
  }, [open, editing]);

  const set = (patch: Partial<ScheduleInput>) => setForm((f) => ({ ...f, ...patch }));
  const setTask = (i: number, t: ScheduleTask) => set({ tasks: form.tasks.map((x, j) => (j === i ? t : x)) });
  const move = (i: number, dir: -1 | 1) => {
    const tasks = [...form.tasks];
    [tasks[i], tasks[i + dir]] = [tasks[i + dir], tasks[i]];
    set({ tasks });
  };

  async function save() {
    const p = scheduleProblem(form as unknown as Record<string, unknown>);
    if (p) return setProblem(p);
    setProblem(null);
    try {
      if (editing) await schedulesApi.update(editing.id, form);
      else await schedulesApi.create(form);
      showFlash(`Schedule "${form.name}" saved.`, "success");
      onSaved();
      onClose();
    } catch {
      // flashed by the client
    }
  }

  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullScreen={phone}
      maxWidth="md"
      fullWidth
      aria-labelledby="schedule-title"
    >
      <DialogTitle id="schedule-title">{editing ? "Edit schedule" : "New schedule"}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            label="Name"
            value={form.name}
            onChange={(e) => set({ name: e.target.value })}
            autoComplete="off"
          />
          <TextField
            label="When (cron: minute hour day month weekday)"
            value={form.cron}
            onChange={(e) => set({ cron: e.target.value })}
            autoComplete="off"
            slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: "monospace" } } }}
          />
          <CronPreview cron={form.cron} />
          <TextField
            select
            label="Condition"
            value={form.condition}
            onChange={(e) => set({ condition: e.target.value as ScheduleCondition })}
          >
            {SCHEDULE_CONDITIONS.map((c) => (
              <MenuItem key={c} value={c}>{SCHEDULE_CONDITION_LABELS[c]}</MenuItem>
            ))}
          </TextField>
          <Box sx={{ display: "flex", gap: 2, flexWrap: "wrap" }}>
            <FormControlLabel
              control={<Switch checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} />}
              label="Enabled"
            />
            <FormControlLabel
              control={
                <Checkbox
                  checked={form.run_missed}
                  onChange={(e) => set({ run_missed: e.target.checked })}
                />
              }
              label="Run once at start-up if runs were missed"
            />
          </Box>
          <Typography variant="h6" component="h3">Tasks, in order</Typography>
          {form.tasks.map((t, i) => (
            <TaskEditor
              key={i}
              task={t}
              index={i}
              count={form.tasks.length}
              onChange={(x) => setTask(i, x)}
              onMove={(dir) => move(i, dir)}
              onRemove={() => set({ tasks: form.tasks.filter((_, j) => j !== i) })}
            />
          ))}
          <Box>
            <Button
              color="secondary"
              startIcon={<AddIcon />}
              onClick={() => set({ tasks: [...form.tasks, { type: "backup", delay_s: 0 }] })}
            >
              Add task
            </Button>
          </Box>
          {problem && <Typography color="error" role="alert">{problem}</Typography>}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose}>Cancel</Button>
        <Button onClick={save}>Save schedule</Button>
      </DialogActions>
    </Dialog>
  );
}
