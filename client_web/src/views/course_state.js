// @ts-check
// The Course view's state and how each message changes it: pure (no DOM, no socket, no storage). The view
// feeds it the player's intents and what its game session shows, stores the card and deals the holes from
// the state before and after.
import { HOLES, holeCodes } from "../game/course.js";

/** @typedef {import("../game/gamestate.js").GameState} GameState */
/**
 * A course being played: an open course's `code` (its holes derived here), or the weekend's daily course
 * (`daily`: its day; `code` empty: the server deals each hole as `game` and never sends its code).
 * @typedef {{code: string, holes: number[], game: string | null, daily?: string}} CourseCard
 */
/**
 * `begin`: a course code to play from hole 1; `shown`: the game session shows a state (`change`: "snapshot"
 * or the diff's action, with the `diff`, for the board to paint); `next`: the player records the hole just
 * over and goes on (an open course); `daily`: the server's card of the daily course and the game of its hole
 * to play (null: the course is over); `reset`: back to the form; `load`: the view shows `card` afresh (the
 * stored card of an open course, or none for the daily course: the server's comes next), counting on.
 * @typedef {{t: "begin", code: string}
 *   | {t: "shown", state: GameState, change?: string, diff?: Record<string, any> | null} | {t: "next"}
 *   | {t: "daily", day: string, holes: number[], game: string | null} | {t: "reset"}
 *   | {t: "load", card: CourseCard | null}} Msg
 */
/**
 * @typedef {object} CourseState
 * @property {CourseCard | null} card the course being played (null: the form)
 * @property {GameState | null} game the current hole's game as shown (null until its first snapshot)
 * @property {number} deals how many times a hole was asked to be dealt (the view deals on each change)
 */

/** @param {CourseCard | null} card @returns {CourseState} */
export function initial(card = null) {
  return { card, game: null, deals: 0 };
}

/** The current hole (0-based), or null when the course is over or none is played. @param {CourseState} s */
export function currentHole(s) {
  return s.card && s.card.holes.length < HOLES ? s.card.holes.length : null;
}

/** The cards left on the tableau of a shown game. @param {{columns: any[][]}} game */
export const cardsLeft = (game) => game.columns.reduce((n, col) => n + col.length, 0);

/** @param {CourseState} s @param {Msg} msg @returns {CourseState} */
export function reduce(s, msg) {
  switch (msg.t) {
    case "begin":
      return { card: { code: msg.code, holes: [], game: null }, game: null, deals: s.deals + 1 };
    case "shown": {
      const i = currentHole(s);
      if (!s.card || i == null) return s;
      if (s.card.daily ? msg.state.game !== s.card.game : msg.state.code !== holeCodes(s.card.code)[i]) return s; // not this hole
      const card = s.card.game === msg.state.game ? s.card : { ...s.card, game: msg.state.game };
      return { ...s, card, game: msg.state };
    }
    case "daily": {
      const card = { code: "", holes: msg.holes, game: msg.game, daily: msg.day };
      const same = s.card?.daily === msg.day && s.card.game === msg.game && s.card.holes.length === msg.holes.length;
      if (same) return s;
      const dealt = msg.game != null && msg.game !== s.card?.game;
      return { card, game: dealt ? null : s.game, deals: dealt ? s.deals + 1 : s.deals };
    }
    case "next": {
      if (!s.card || s.card.daily || !s.game || s.game.status === "playing" || currentHole(s) == null) return s;
      const card = { code: s.card.code, holes: [...s.card.holes, cardsLeft(s.game)], game: null };
      return { card, game: null, deals: card.holes.length < HOLES ? s.deals + 1 : s.deals };
    }
    case "reset":
      return { card: null, game: null, deals: s.deals };
    case "load":
      return { ...initial(msg.card), deals: s.deals };
    default:
      return s;
  }
}

/** The most a failed post waits before it is sent again (ms). */
export const RETRY_MAX_MS = 15_000;

/** How long the `attempt`-th retry of a failed post waits (ms): 1 s, 2 s, 4 s … up to `RETRY_MAX_MS`. */
export const retryDelay = (/** @type {number} */ attempt) => Math.min(RETRY_MAX_MS, 1000 * 2 ** Math.max(0, attempt));

/**
 * Whether a post that failed with this HTTP status is worth sending again as it is: no answer at all (0: the
 * network), a server's failure (5xx), too many requests or a timeout. A refusal (4xx) is final: the same
 * post would be refused again.
 * @param {number} status
 */
export const transient = (status) => status === 0 || status >= 500 || status === 429 || status === 408;
