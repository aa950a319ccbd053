// The board's keys: 1–7 remove a column's free card, Space or D draw, U or Ctrl+Z undo, N new game, H hint
// (Play only). Space on a focused button (a free card, Undo…) presses that button instead of drawing.
// Physical key codes are checked too, so the keys work with a Hebrew (or any) keyboard layout.
import { typingOrDialog } from "./ui.js";

export function boardKeys({ tap, draw, undo, newGame = null, hint = null }) {
  return (e) => {
    if (e.defaultPrevented || typingOrDialog(e) || e.altKey || e.metaKey) return;
    const ctrlZ = e.ctrlKey && (e.key === "z" || e.key === "Z" || e.code === "KeyZ");
    if (e.ctrlKey && !ctrlZ) return;
    const key = e.key.toLowerCase();
    const digit = /^(Digit|Numpad)([1-7])$/.exec(e.code)?.[2] ?? (/^[1-7]$/.test(key) ? key : null);
    if (digit) tap(Number(digit));
    else if ((key === " " && !onControl(e)) || key === "d" || e.code === "KeyD") draw();
    else if (ctrlZ || key === "u" || e.code === "KeyU") undo();
    else if (newGame && (key === "n" || e.code === "KeyN")) newGame();
    else if (hint && (key === "h" || e.code === "KeyH")) hint();
    else return;
    e.preventDefault();
  };
}

function onControl(e) {
  return Boolean(e.target?.closest?.("button, a[href], summary, [role='button'], [role='link']"));
}
