// @ts-check
// How times and racer statuses read on screen; shared by the race, watch, daily and leaderboard views.
import { t } from "./i18n.js";

/**
 * What the race clocks read of a race and of a racer (a `race` message, or a part of one).
 * @typedef {{starts_at?: number | null, ended_at?: number | null, deadline?: number | null, phase?: string}} RaceClock
 * @typedef {{status?: string, elapsed?: number | null, removed?: number}} RacerClock
 */

/** The cards dealt to the tableau: a racer's progress counts how many of them are gone. */
export const TABLEAU = 35;

/**
 * Milliseconds as a time on screen: the page's one way to write a time ("—" when unknown).
 *
 * The rule, everywhere: a time that is a result (`{ final: true }`: a finished game's or racer's time in a
 * dialog, a results table, a leaderboard, a personal best, the stats, a share text) reads m:ss.t, with tenths,
 * because rankings compare milliseconds and one result must read the same in every place it appears (the race
 * HUD once my game is over, my results row, the daily's dialog and its share text). A clock still running (a
 * racer's time while they play, a countdown) and a duration (a time limit) read m:ss: tenths would only
 * flicker there. Tenths are cut, never rounded, so that a running clock never shows a second its final time
 * has not reached.
 * @param {number | null | undefined} ms
 * @param {{ final?: boolean }} [options]
 */
export function clock(ms, { final = false } = {}) {
  if (ms == null) return "—";
  const whole = Math.max(0, Math.floor(ms / 1000));
  const text = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  return final ? `${text}.${Math.floor((Math.max(0, ms) % 1000) / 100)}` : text;
}

/** A racer's status (playing, won, stuck, resigned, timeout, abandoned) in the page's language.
 * @param {string | undefined} status
 * @returns {string}
 */
export function statusText(status) {
  return t(`ui.status.${status}`);
}

/** A racer's progress in one line, "status · removed/35 · time", their time running at server time `now`
 * (whole seconds while they play, their final time with tenths once their game is over).
 * @param {RaceClock | null | undefined} race
 * @param {RacerClock} racer
 * @param {number} now
 * @returns {string}
 */
export function progressLine(race, racer, now) {
  const time = clock(racerElapsed(race, racer, now), { final: racer.status !== "playing" });
  return `${statusText(racer.status)} · ${racer.removed ?? 0}/${TABLEAU} · ${time}`;
}

/** A racer's time at server time `now`: it runs while they play a running race (within its time limit); a
 * racer who is done, or a race not started or over, shows the time the server sent.
 * @param {RaceClock | null | undefined} race
 * @param {RacerClock | null | undefined} racer
 * @param {number} now
 * @returns {number | null}
 */
export function racerElapsed(race, racer, now) {
  const startsAt = race?.starts_at;
  const running = race && startsAt != null && now >= startsAt && race.ended_at == null && race.phase !== "finished";
  if (!running || racer?.status !== "playing") return racer?.elapsed ?? null;
  const end = race.deadline ? Math.min(now, race.deadline) : now;
  return Math.max(racer.elapsed ?? 0, end - startsAt);
}
