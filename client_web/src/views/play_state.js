// @ts-check
// The Play view's state and how each message changes it: pure (no DOM, no socket, no timers, no settings).
// The view feeds it what the game session shows and what the server answers (hints, races, refusals,
// errors), paints the state, and derives what to send or where to go from the state before and after.

/** @typedef {import("../game/gamestate.js").GameState} GameState */
/** @typedef {Record<string, any>} Message */
/**
 * `shown`: the game session shows a new state (`change`: "snapshot" or the diff's action); `refused`,
 * `error` (one the session passes on), `hint`, `race`: the server's; `ready`: a new connection; and the
 * player's own `hint_asked`, `hint_unsent` (the connection is down) and `race_asked` (Race a friend).
 * @typedef {{t: "shown", state: GameState, change: string, diff?: Message | null}
 *   | import("../net/messages.js").RefusedMessage
 *   | import("../net/messages.js").ErrorMessage
 *   | import("../net/messages.js").HintMessage
 *   | import("../net/messages.js").RaceMessage
 *   | {t: "race_asked", rid: string} | {t: "hint_asked"} | {t: "hint_unsent"} | {t: "ready"}} Msg
 */
/**
 * Something to tell the player once (a toast): a catalog `key`, or an error `code` (errorText), with `n`
 * counting notices so that the same words said twice are shown twice.
 * @typedef {{kind: "info" | "error", key?: string, code?: string, params?: object, n: number}} Notice
 */
/**
 * @typedef {object} PlayState
 * @property {GameState | null} game the game on the board (null before the first snapshot)
 * @property {string} change what led to it: "snapshot", or the action of the diff ("tap", "draw", "undo")
 * @property {Message | null} diff the diff just applied (null after a snapshot)
 * @property {{kind: "stuck" | "won" | null, at: string} | null} end the end of the game whose dialog was last
 *   opened ("<game>@<version>"), kind null when its dialog is closed by an undo or another position
 * @property {{game: string, v: number} | null} hint a hint asked for this position, until it is answered
 * @property {{move: import("../net/messages.js").WireHintMove, n: number} | null} pointed the last hint's move, to
 *   point at on the board
 * @property {{code: string, params?: object, n: number} | null} refusal the last refused action
 * @property {Notice | null} notice the last thing to tell the player
 * @property {string | null} raceAsked the rid of a "race a friend" request not answered yet
 * @property {string | null} raceJoined the race it made (the view goes to its lobby)
 * @property {number} deals how many times a message asked for a fresh random deal (the last game is gone)
 */

/** @returns {PlayState} */
export function initial() {
  return {
    game: null,
    change: "snapshot",
    diff: null,
    end: null,
    hint: null,
    pointed: null,
    refusal: null,
    notice: null,
    raceAsked: null,
    raceJoined: null,
    deals: 0,
  };
}

/** @param {PlayState} state @param {Omit<Notice, "n">} notice @returns {PlayState} */
function tell(state, notice) {
  return { ...state, notice: { ...notice, n: (state.notice?.n ?? 0) + 1 } };
}

/**
 * The state after one message (any other message leaves it as it is).
 * @param {PlayState} state
 * @param {Msg} msg
 * @returns {PlayState}
 */
export function reduce(state, msg) {
  switch (msg.t) {
    case "shown":
      return shown(state, msg.state, msg.change, msg.diff ?? null);
    case "refused":
      return { ...state, refusal: { code: msg.code, params: msg.params, n: (state.refusal?.n ?? 0) + 1 } };
    case "hint_asked": {
      const game = state.game;
      if (!game || game.role !== "player" || state.hint) return state;
      if (game.status !== "playing") return tell(state, { kind: "info", key: "ui.hint_none" });
      return { ...state, hint: { game: game.game, v: game.v } };
    }
    case "hint_unsent":
      return state.hint ? { ...state, hint: null } : state;
    case "hint":
      return hinted(state, msg);
    case "ready": // an answer lost with the connection: the hint can be asked again
      return state.hint ? { ...state, hint: null } : state;
    case "error":
      return failed(state, msg);
    case "race_asked":
      return { ...state, raceAsked: msg.rid, raceJoined: null };
    case "race":
      if (!state.raceAsked || msg.rid !== state.raceAsked || !msg.you) return state;
      return { ...state, raceAsked: null, raceJoined: msg.race };
    default:
      return state;
  }
}

/** @param {PlayState} state @param {GameState} game @param {string} change @param {Message | null} diff */
function shown(state, game, change, diff) {
  const at = `${game.game}@${game.v}`;
  let end = state.end;
  // a snapshot of the very position whose end dialog is open (a reconnect, a resync) keeps it open
  if (end?.kind && (change === "undo" || (change === "snapshot" && end.at !== at))) end = { ...end, kind: null };
  if (game.status !== "playing" && state.end?.at !== at) {
    end = { kind: game.status === "stuck" || game.status === "won" ? game.status : null, at };
  }
  return { ...state, game, change, diff, end };
}

/** @param {PlayState} state @param {Extract<Msg, {t: "hint"}>} m */
function hinted(state, m) {
  if (!state.hint || m.game !== state.hint.game) return state;
  const game = state.game;
  const next = { ...state, hint: null };
  if (!game || m.game !== game.game || m.v !== game.v) return next; // the board moved on meanwhile
  if (!m.move) return tell(next, { kind: "info", key: "ui.hint_none" });
  const pointed = { ...next, pointed: { move: m.move, n: (state.pointed?.n ?? 0) + 1 } };
  if (m.winnable !== false) return pointed;
  // at move 0 nothing was lost yet: the deal itself cannot be won
  return tell(pointed, { kind: "info", key: game.moves - game.undos === 0 ? "ui.hint_unwinnable" : "ui.hint_lost" });
}

/** @param {PlayState} state @param {Extract<Msg, {t: "error"}>} m */
function failed(state, m) {
  if (m.ref === "hint") return tell({ ...state, hint: null }, { kind: "error", code: m.code, params: m.params });
  if (!state.game && (m.ref === "open" || m.ref === "resync")) return { ...state, deals: state.deals + 1 };
  const next = m.ref === "race_new" && state.raceAsked ? { ...state, raceAsked: null } : state;
  return m.ref === "new" ? next : tell(next, { kind: "error", code: m.code, params: m.params });
}
