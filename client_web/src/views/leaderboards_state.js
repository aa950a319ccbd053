// @ts-check
// The Leaderboards view's state and how each message changes it: pure (no DOM, no fetch, no socket).
// The view feeds it the board asked for (`load`), the pages fetched over HTTP (`page`, `refreshed`), the
// server's live `board` updates and the connection's `ready`; it paints the state and derives from before
// and after what to fetch and which board to follow.
import { checkCode } from "../game/codes.js";
import { checkCourse } from "../game/course.js";

/** @typedef {Record<string, any>} Message */
/** @typedef {import("../net/messages.js").BoardMessage} BoardMessage */
/**
 * `load`: the board of `kind` ("daily", "code", "course" or "course-day": the nine-deal course's boards)
 * and `key` (a day, "" for today at `now`, a game code or a course code) is
 * asked for; `page`: load `n` answered (`data`, or the `error` text); `board`: the server's live update of a
 * followed board; `refreshed`: refresh `r` of load `n` answered; `ready`: a new connection; `leave`: the
 * view is left (older answers are dropped, nothing is followed).
 * @typedef {{t: "load", kind: string, key: string, now?: number}
 *   | {t: "page", n: number, data?: Message, error?: string}
 *   | BoardMessage
 *   | {t: "refreshed", n: number, r: number, data: Message}
 *   | {t: "ready"} | {t: "leave"}} Msg
 */
/**
 * @typedef {object} BoardsState
 * @property {string | null} path the page asked for under /api/leaderboards/ (null: none; the view fetches
 *   it when `loads` moves on with a path)
 * @property {number} loads counts the pages asked for: the answer of an older one is dropped
 * @property {number} refreshes counts the refreshes asked for (a live update moved the top)
 * @property {Message | null} shown the page on screen: {board, total, entries, you}
 * @property {string | null} watched the board followed live (one board_watch per shown board)
 * @property {{key?: string, text?: string} | null} error what went wrong instead (a catalog key, or the
 *   text of an HTTP answer), shown alone: no table and no board followed
 * @property {number} connections handshakes seen: a new connection follows nothing, so watch again
 */

/** @returns {BoardsState} */
export function initial() {
  return { path: null, loads: 0, refreshes: 0, shown: null, watched: null, error: null, connections: 0 };
}

/** The UTC day as the server counts the daily challenge ("2026-12-01"). @param {number} [now] */
export function today(now = Date.now()) {
  return new Date(now).toISOString().slice(0, 10);
}

/** Whether a live `board` update shows the same top entries as the page on screen.
 * @param {Message} page @param {BoardMessage} update */
export function sameTop(page, update) {
  const key = (/** @type {Message} */ e) => `${e.player}|${e.score}|${e.elapsed}|${e.moves}|${e.finished_at}`;
  const top = (page.entries ?? []).slice(0, update.entries?.length ?? 0).map(key).join();
  return page.total === update.total && top === (update.entries ?? []).map(key).join();
}

/** Whether the server sends a board's changes live (`board_watch`): the daily and code boards do; a
 * course's board is read a page at a time. @param {string} board */
export const followed = (board) => /^(daily|code):/.test(board);

/** @param {BoardsState} state @param {{key?: string, text?: string}} error @returns {BoardsState} */
function failed(state, error) {
  return { ...state, error, shown: null, watched: null };
}

/**
 * @param {BoardsState} state
 * @param {Msg} msg
 * @returns {BoardsState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "load": {
      const loads = state.loads + 1;
      if (msg.kind === "code") {
        const r = checkCode(msg.key);
        if (!r.ok) return failed({ ...state, loads, path: null }, { key: `ui.code_errors.${r.part}` });
        return { ...state, loads, error: null, path: `code/${encodeURIComponent(/** @type {string} */ (r.code))}` };
      }
      if (msg.kind === "course") {
        const r = checkCourse(msg.key);
        if (!r.ok) return failed({ ...state, loads, path: null }, { key: r.part === "prefix" ? "ui.course.code_help" : `ui.code_errors.${r.part}` });
        return { ...state, loads, error: null, path: `course/${encodeURIComponent(/** @type {string} */ (r.code))}` };
      }
      if (msg.kind === "course-day") return { ...state, loads, error: null, path: `course-day/${encodeURIComponent(msg.key || today(msg.now))}` };
      return { ...state, loads, error: null, path: `daily/${encodeURIComponent(msg.key || today(msg.now))}` };
    }
    case "page": {
      if (msg.n !== state.loads) return state;
      if (msg.error) return failed(state, { text: msg.error });
      const data = /** @type {Message} */ (msg.data); // an answer without an error has its page
      return { ...state, shown: data, watched: followed(String(data.board)) ? data.board : null };
    }
    case "board": {
      const { shown, watched } = state;
      if (msg.board !== watched || !shown || msg.board !== shown.board || sameTop(shown, msg)) return state;
      return { ...state, refreshes: state.refreshes + 1 };
    }
    case "refreshed":
      if (msg.n !== state.loads || msg.r !== state.refreshes || msg.data?.board !== state.watched) return state;
      return { ...state, shown: msg.data };
    case "ready":
      return { ...state, connections: state.connections + 1 };
    case "leave":
      return { ...state, loads: state.loads + 1, path: null, shown: null, watched: null };
    default:
      return state;
  }
}
