import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from "@mui/material";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  /** Red confirm button for destructive actions. */
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

export function ConfirmDialog(p: ConfirmDialogProps) {
  return (
    <Dialog open={p.open} onClose={p.onClose} aria-labelledby="confirm-title" maxWidth="xs" fullWidth>
      <DialogTitle id="confirm-title">{p.title}</DialogTitle>
      <DialogContent>
        <DialogContentText>{p.message}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={p.onClose}>Cancel</Button>
        <Button
          color={p.danger ? "error" : "primary"}
          onClick={() => {
            p.onConfirm();
            p.onClose();
          }}
          autoFocus
        >
          {p.confirmLabel ?? "OK"}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
