// @ts-check
// The client's copy of one game: pure functions over plain objects, no DOM, no socket.
// A board only moves forward: diffs are applied in version order, a snapshot or diff older than what is
// shown is ignored, and a gap is reported so the caller can ask the server to resync.

/** @typedef {import("../net/messages.js").SnapshotMessage} SnapshotMessage */
/** @typedef {import("../net/messages.js").DiffMessage} DiffMessage */
/** @typedef {Omit<DiffMessage, "t">} GameDiff a diff's fields (a replay's step carries no `t`) */
/**
 * The card a diff moved, as the board animates it and a screen reader hears it (a diff, or the walkthrough's
 * own move).
 * @typedef {{removed?: import("../net/messages.js").WirePlaced, drawn?: unknown,
 *   restored?: import("../net/messages.js").WirePlaced, undrawn?: unknown, [field: string]: unknown}} Moved
 */

/**
 * A board as the Board component paints it: a played game, or a watched racer's or a replay's board.
 * @typedef {object} BoardState
 * @property {string[][]} columns
 * @property {string | null} discard
 * @property {number} stock_count
 * @property {number} score
 * @property {number} moves
 * @property {string} status
 * @property {number} [v]
 * @property {string} [game]
 * @property {number} [undos]
 * @property {boolean} [can_undo]
 * @property {string | null} [code]
 * @property {boolean | null} [held] a watched racer drew a card others have not reached yet (face down)
 */

/**
 * What the board, its description and its announcements take: a BoardState. A looser record is taken too,
 * for now: some views still type the board they pass more loosely (views/race_state.js SeatBoard has no
 * `columns`; views/analysis.js passes no `moves`); once they say BoardState this can be BoardState alone.
 * @typedef {BoardState | Record<string, any>} Paintable
 */

/**
 * The shown game.
 * @typedef {object} GameState
 * @property {string} game
 * @property {number} v
 * @property {string} role
 * @property {string | null} code
 * @property {import("../net/messages.js").WireRules} rules
 * @property {Partial<import("../net/messages.js").WireVariants>} variants
 * @property {string[][]} columns
 * @property {string | null} discard
 * @property {number} stock_count
 * @property {number} score
 * @property {number} moves
 * @property {number} undos
 * @property {import("../net/messages.js").WireGameStatus} status
 * @property {boolean} can_undo
 * @property {boolean} [held]
 */

/**
 * The shown state from a `snapshot` message.
 * @param {Pick<SnapshotMessage, "game" | "v" | "role" | "state">} msg
 * @returns {GameState}
 */
export function fromSnapshot(msg) {
  const s = msg.state;
  return {
    game: msg.game,
    v: msg.v,
    role: msg.role,
    code: s.code ?? null,
    rules: s.rules,
    variants: s.variants ?? {},
    columns: s.columns.map((/** @type {string[]} */ col) => [...col]),
    discard: s.discard ?? null,
    stock_count: s.stock_count,
    score: s.score,
    moves: s.moves,
    undos: s.undos ?? 0,
    status: s.status,
    can_undo: Boolean(s.can_undo),
  };
}

/** Whether a snapshot should replace `current` (never go back to an older version of the same game).
 * @param {GameState | null} current
 * @param {Pick<SnapshotMessage, "game" | "v">} msg
 * @returns {boolean}
 */
export function snapshotIsNewer(current, msg) {
  return !current || current.game !== msg.game || msg.v >= current.v;
}

/**
 * Apply one `diff` message. Returns `{state, change}`; `change` is "stale" (already shown: state unchanged),
 * "gap" (a version is missing: state unchanged, resync), or the applied diff's action.
 * @template {BoardState | null} S
 * @param {S} state
 * @param {GameDiff} diff
 * @returns {{state: S, change: "stale" | "gap" | GameDiff["a"]}}
 */
export function applyDiff(state, diff) {
  if (!state || diff.game !== state.game || diff.v <= /** @type {number} */ (state.v)) return { state, change: "stale" };
  if (diff.from !== state.v) return { state, change: "gap" };
  const columns = state.columns.map((col) => col.slice());
  if (diff.removed) {
    const col = columns[diff.removed.col - 1];
    if (col[col.length - 1] === diff.removed.card) col.pop();
  }
  if (diff.restored) columns[diff.restored.col - 1].push(diff.restored.card);
  /** @type {BoardState} */
  const next = {
    ...state,
    v: diff.v,
    columns,
    discard: diff.discard ?? null,
    stock_count: diff.stock_count,
    score: diff.score,
    moves: diff.moves,
    undos: diff.undos ?? state.undos,
    status: diff.status,
    // The engine's rule (engine/game.py can_undo, wire/views.py undo_open), sent in every diff: never guessed
    // here (a draw in ranked play, a race without undo, a racer's stuck game: moves are left, no undo).
    can_undo: Boolean(diff.can_undo),
  };
  if (diff.code !== undefined && diff.code !== null) next.code = diff.code;
  return { state: /** @type {S} */ (next), change: diff.a };
}

/**
 * Buffers diffs that arrive ahead of a gap and releases them in order once the gap is filled.
 * `push(diff)` returns the list of diffs ready to apply now, in version order.
 */
export class DiffQueue {
  constructor(limit = 64) {
    this.limit = limit;
    /** @type {Map<number, DiffMessage>} */
    this.pending = new Map();
  }

  clear() {
    this.pending.clear();
  }

  /** @param {DiffMessage} diff */
  hold(diff) {
    if (this.pending.size < this.limit) this.pending.set(diff.v, diff);
  }

  /**
   * Diffs that now follow version `v` without a hole.
   * @param {number} v
   * @returns {DiffMessage[]}
   */
  drain(v) {
    const out = [];
    let next = v + 1;
    for (let diff = this.pending.get(next); diff; diff = this.pending.get(next)) {
      out.push(diff);
      this.pending.delete(next);
      next += 1;
    }
    for (const key of this.pending.keys()) if (key <= v) this.pending.delete(key);
    return out;
  }
}
