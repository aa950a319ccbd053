// @ts-check
// The client's copy of one game: pure functions over plain objects, no DOM, no socket.
// A board only moves forward: diffs are applied in version order, a snapshot or diff older than what is
// shown is ignored, and a gap is reported so the caller can ask the server to resync.

/** The shown state from a `snapshot` message. */
export function fromSnapshot(msg) {
  const s = msg.state;
  return {
    game: msg.game,
    v: msg.v,
    role: msg.role,
    code: s.code ?? null,
    rules: s.rules,
    variants: s.variants ?? {},
    columns: s.columns.map((col) => [...col]),
    discard: s.discard ?? null,
    stock_count: s.stock_count,
    score: s.score,
    moves: s.moves,
    undos: s.undos ?? 0,
    status: s.status,
    can_undo: Boolean(s.can_undo),
  };
}

/** Whether a snapshot should replace `current` (never go back to an older version of the same game). */
export function snapshotIsNewer(current, msg) {
  return !current || current.game !== msg.game || msg.v >= current.v;
}

/**
 * Apply one `diff` message. Returns `{state, change}`; `change` is "stale" (already shown: state unchanged),
 * "gap" (a version is missing: state unchanged, resync), or the applied diff's action.
 */
export function applyDiff(state, diff) {
  if (!state || diff.game !== state.game || diff.v <= state.v) return { state, change: "stale" };
  if (diff.from !== state.v) return { state, change: "gap" };
  const columns = state.columns.map((col) => col.slice());
  if (diff.removed) {
    const col = columns[diff.removed.col - 1];
    if (col[col.length - 1] === diff.removed.card) col.pop();
  }
  if (diff.restored) columns[diff.restored.col - 1].push(diff.restored.card);
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
    // Each undo takes back one move, so moves − undos actions are left to undo (the server says so too).
    can_undo: "can_undo" in diff ? Boolean(diff.can_undo) : diff.moves - (diff.undos ?? 0) > 0,
  };
  if (diff.code !== undefined && diff.code !== null) next.code = diff.code;
  return { state: next, change: diff.a };
}

/**
 * Buffers diffs that arrive ahead of a gap and releases them in order once the gap is filled.
 * `push(diff)` returns the list of diffs ready to apply now, in version order.
 */
export class DiffQueue {
  constructor(limit = 64) {
    this.limit = limit;
    this.pending = new Map();
  }

  clear() {
    this.pending.clear();
  }

  hold(diff) {
    if (this.pending.size < this.limit) this.pending.set(diff.v, diff);
  }

  /** Diffs that now follow version `v` without a hole. */
  drain(v) {
    const out = [];
    let next = v + 1;
    while (this.pending.has(next)) {
      out.push(this.pending.get(next));
      this.pending.delete(next);
      next += 1;
    }
    for (const key of this.pending.keys()) if (key <= v) this.pending.delete(key);
    return out;
  }
}
