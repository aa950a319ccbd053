// @ts-check
// The board's keys: 1–7 remove a column's free card, Space or D draw, U or Ctrl+Z undo, N new game, H hint
// (Play only), B reads the whole board (`read`). Space draws wherever the focus is on the board (a free card,
// the stock) or was left by a mouse or touch tap; only a control reached with the keyboard (Tab, shown by
// its focus ring) takes Space as its own press. Physical key codes are checked too, so the keys work with a
// Hebrew (or any) keyboard layout.
import { typingOrDialog } from "./ui.js";

/**
 * The keydown handler for a board's keys; the optional ones are off when not given.
 * @param {{tap: (col: number) => void, draw: () => void, undo: () => void,
 *   newGame?: (() => void) | null, hint?: (() => void) | null, read?: (() => void) | null}} actions
 * @returns {(e: KeyboardEvent) => void}
 */
export function boardKeys({ tap, draw, undo, newGame = null, hint = null, read = null }) {
  return (e) => {
    if (e.defaultPrevented || typingOrDialog(e) || e.altKey || e.metaKey) return;
    const ctrlZ = e.ctrlKey && (e.key === "z" || e.key === "Z" || e.code === "KeyZ");
    if (e.ctrlKey && !ctrlZ) return;
    const key = e.key.toLowerCase();
    const digit = /^(Digit|Numpad)([1-7])$/.exec(e.code)?.[2] ?? (/^[1-7]$/.test(key) ? key : null);
    if (digit) tap(Number(digit));
    else if ((key === " " && !keyboardControl(e.target)) || key === "d" || e.code === "KeyD") draw();
    else if (ctrlZ || key === "u" || e.code === "KeyU") undo();
    else if (newGame && (key === "n" || e.code === "KeyN")) newGame();
    else if (hint && (key === "h" || e.code === "KeyH")) hint();
    else if (read && (key === "b" || e.code === "KeyB")) read();
    else return;
    e.preventDefault();
  };
}

// How the player last moved the focus: Tab (the keyboard) or a pointer (mouse, touch, pen). A dialog hands
// the focus back to the button that opened it, and that says nothing about who will press Space next.
let tabbed = false;
globalThis.document?.addEventListener("keydown", (e) => e.key === "Tab" && (tabbed = true), true);
globalThis.document?.addEventListener("pointerdown", () => (tabbed = false), true);

/** A control outside the board that the player reached with the keyboard (Tab): Space presses it.
 * @param {EventTarget | null} target
 * @returns {boolean}
 */
export function keyboardControl(target) {
  const control = /** @type {Element | null} */ (target)?.closest?.("button, a[href], summary, [role='button'], [role='link']");
  if (!control || control.closest(".board")) return false;
  return tabbed && control.matches(":focus-visible");
}
