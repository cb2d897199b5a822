// Flash messages: short notices at the bottom of the screen that vanish after 4 seconds (spec 8/9).

import { proxy } from "valtio";

export const FLASH_MS = 4000;

export type FlashColor = "error" | "success" | "info";

export interface FlashItem {
  id: number;
  message: string;
  color: FlashColor;
}

export const flash = proxy<{ items: FlashItem[] }>({ items: [] });

let nextId = 1;

export function showFlash(message: string, color: FlashColor = "info"): number {
  // The same notice twice at once (several requests failing together) says nothing new.
  const same = flash.items.find((f) => f.message === message && f.color === color);
  if (same) return same.id;
  const id = nextId++;
  flash.items.push({ id, message, color });
  // Only the newest few stay on screen; a burst of errors must not cover the page.
  if (flash.items.length > 4) flash.items.splice(0, flash.items.length - 4);
  setTimeout(() => dismissFlash(id), FLASH_MS);
  return id;
}

export function dismissFlash(id: number): void {
  const i = flash.items.findIndex((f) => f.id === id);
  if (i >= 0) flash.items.splice(i, 1);
}
