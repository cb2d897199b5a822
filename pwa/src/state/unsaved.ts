// Unsaved edits on the current page (Server Settings): the layout asks before a sidebar link or Logout
// leaves them, and the browser asks before a reload or closing the tab.

import { useEffect } from "react";
import { proxy } from "valtio";

export const unsaved = proxy<{ dirty: boolean }>({ dirty: false });

function onBeforeUnload(e: BeforeUnloadEvent): void {
  e.preventDefault();
  // Older browsers show the prompt only when returnValue is set.
  e.returnValue = "";
}

/** While `dirty`, leaving the page asks first. */
export function useUnsavedChanges(dirty: boolean): void {
  useEffect(() => {
    unsaved.dirty = dirty;
    if (!dirty) return;
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      unsaved.dirty = false;
    };
  }, [dirty]);
}
