// @ts-check
// How times and racer statuses read on screen; shared by the race, watch, daily and leaderboard views.
import { t } from "./i18n.js";

/** The cards dealt to the tableau: a racer's progress counts how many of them are gone. */
export const TABLEAU = 35;

/** Milliseconds as m:ss, or m:ss.t with `tenths` ("—" when unknown). */
export function clock(ms, { tenths = false } = {}) {
  if (ms == null) return "—";
  const whole = Math.max(0, Math.floor(ms / 1000));
  const text = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  return tenths ? `${text}.${Math.floor((Math.max(0, ms) % 1000) / 100)}` : text;
}

/** The times of ranked rows: m:ss, or m:ss.t for every row when two rows that differ only in milliseconds
 * would read the same (the ranking compares milliseconds, so the page shows why one is ahead). */
export function clocks(rows) {
  const key = (r) => `${r.score}|${clock(r.elapsed)}`;
  const seen = new Set();
  let tied = false;
  for (const r of rows) {
    if (r.elapsed == null) continue;
    if (seen.has(key(r))) tied = true;
    seen.add(key(r));
  }
  return rows.map((r) => clock(r.elapsed, { tenths: tied }));
}

/** A racer's status (playing, won, stuck, resigned, timeout, abandoned) in the page's language. */
export function statusText(status) {
  return t(`ui.status.${status}`);
}

/** A racer's progress in one line, "status · removed/35 · time", their time running at server time `now`. */
export function progressLine(race, racer, now) {
  return `${statusText(racer.status)} · ${racer.removed ?? 0}/${TABLEAU} · ${clock(racerElapsed(race, racer, now))}`;
}

/** A racer's time at server time `now`: it runs while they play a running race (within its time limit); a
 * racer who is done, or a race not started or over, shows the time the server sent. */
export function racerElapsed(race, racer, now) {
  const running = race?.starts_at != null && now >= race.starts_at && race.ended_at == null && race.phase !== "finished";
  if (!running || racer?.status !== "playing") return racer?.elapsed ?? null;
  const end = race.deadline ? Math.min(now, race.deadline) : now;
  return Math.max(racer.elapsed ?? 0, end - race.starts_at);
}
