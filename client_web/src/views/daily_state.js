// @ts-check
// The Daily view's state and how each message changes it: pure (no DOM, no socket, no timers).
// The view feeds it the server's `daily`, `race` and `error` messages, the connection's `ready` and the
// player's own "play" click, paints it, and derives what to send or where to go from before and after.

/** @typedef {Record<string, any>} Message */
/** @typedef {import("../net/messages.js").DailyMessage} DailyMessage */
/**
 * The server's `daily` (the day's status), `race` and `error`, the connection's `ready`, `play_asked` (the
 * player pressed Play: the daily race that comes next is the attempt) and `reset` (the view is shown again:
 * the status of a previous visit is stale, an attempt may have ended since; the handshakes seen are kept).
 * @typedef {DailyMessage | import("../net/messages.js").RaceMessage | import("../net/messages.js").ErrorMessage
 *   | {t: "ready"} | {t: "play_asked"} | {t: "reset"}} Msg
 */
/**
 * @typedef {object} DailyState
 * @property {DailyMessage | null} daily the day's status as the server last sent it (`daily`), null before
 * @property {boolean} waiting the player asked to play: the next daily `race` is the attempt to go to
 * @property {string | null} joined the attempt's race (the view goes there)
 * @property {number} connections handshakes seen: after each one the view asks for the status again
 * @property {{code: string, params?: object, n: number} | null} notice the last error of a daily request
 */

/** @returns {DailyState} */
export function initial() {
  return { daily: null, waiting: false, joined: null, connections: 0, notice: null };
}

/**
 * @param {DailyState} state
 * @param {Msg} msg
 * @returns {DailyState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "daily":
      return { ...state, daily: msg };
    case "play_asked": // the same attempt may come back (one resumed): going there again is a new `joined`
      return { ...state, waiting: true, joined: null };
    case "race":
      if (!state.waiting || !msg.daily) return state;
      return { ...state, waiting: false, joined: msg.race };
    case "error":
      if (!String(msg.ref ?? "").startsWith("daily")) return state;
      return { ...state, notice: { code: msg.code, params: msg.params, n: (state.notice?.n ?? 0) + 1 } };
    case "ready":
      return { ...state, connections: state.connections + 1 };
    case "reset":
      return { ...initial(), connections: state.connections };
    default:
      return state;
  }
}

/** Which label the play button has: the day's first attempt, the ranked one resumed, or a practice; a guest
 * plays the guests' deal (fair play 19.1: the day's deal is an account's).
 * @param {Message | null} daily @param {boolean} [guest]
 * @returns {"ui.daily_play" | "ui.daily_continue" | "ui.daily_practice" | "ui.daily_play_guest"} */
export function playLabel(daily, guest = false) {
  if (guest) return "ui.daily_play_guest";
  // played but no result: the ranked attempt is started and unfinished, and daily_play resumes it
  if (daily?.played && !daily.result) return "ui.daily_continue";
  return daily?.played ? "ui.daily_practice" : "ui.daily_play";
}
