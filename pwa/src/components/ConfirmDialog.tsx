import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from "@mui/material";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Red confirm button for destructive actions. */
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * Asks before an action. The safe choice (Cancel) has the focus, so Enter or a stray tap on a phone's
 * keyboard never runs the destructive one.
 */
export function ConfirmDialog(p: ConfirmDialogProps) {
  return (
    <Dialog
      open={p.open}
      onClose={p.onClose}
      aria-labelledby="confirm-title"
      aria-describedby="confirm-message"
      maxWidth="xs"
      fullWidth
    >
      <DialogTitle id="confirm-title">{p.title}</DialogTitle>
      <DialogContent>
        <DialogContentText id="confirm-message">{p.message}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={p.onClose} autoFocus>{p.cancelLabel ?? "Cancel"}</Button>
        <Button
          color={p.danger ? "error" : "primary"}
          onClick={() => {
            p.onConfirm();
            p.onClose();
          }}
        >
          {p.confirmLabel ?? "OK"}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
