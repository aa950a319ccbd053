// How times and racer statuses read on screen; shared by the race, watch, daily and leaderboard views.
import { t } from "./i18n.js";

/** Milliseconds as m:ss ("—" when unknown). */
export function clock(ms) {
  if (ms == null) return "—";
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A racer's status (playing, won, stuck, resigned, timeout, abandoned) in the page's language. */
export function statusText(status) {
  return t(`ui.status.${status}`);
}
