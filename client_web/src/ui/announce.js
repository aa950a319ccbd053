// @ts-check
// What a screen reader hears after a move: only what changed ("9 of clubs to the discard; column 5 shows
// 8 of hearts; 15 in the stock"), from the catalogs' `ui.announce` patterns. The whole board stays one key
// away (B, see keys.js) and is the board's description (aria-describedby).
import { cardName, t } from "./i18n.js";

/** The change from `before` to `after` that `diff` made, in the language `loc`; null when nothing moved.
 * @param {import("../game/gamestate.js").Paintable | null | undefined} before  a BoardState
 * @param {import("../game/gamestate.js").Paintable | null | undefined} after  a BoardState
 * @param {import("../game/gamestate.js").Moved | null | undefined} diff
 * @param {string} [loc]
 * @returns {string | null}
 */
export function describeChange(before, after, diff, loc) {
  if (!before || !after || !diff) return null;
  /** @param {string} code */
  const name = (code) => cardName(code, loc);
  /**
   * @param {string} key
   * @param {object} [params]
   */
  const say = (key, params) => t(`ui.announce.${key}`, params, loc);
  /** @param {number} n */
  const columnNow = (n) => {
    const col = after.columns[n - 1] ?? [];
    return col.length ? say("column_shows", { n, card: name(col[col.length - 1]) }) : say("column_empty", { n });
  };
  const discardNow = () => (after.discard ? say("discard_shows", { card: name(after.discard) }) : say("discard_empty"));
  const parts = [];
  if (diff.removed) {
    parts.push(say("to_discard", { card: name(diff.removed.card) }), columnNow(diff.removed.col));
  } else if (diff.drawn && after.discard) {
    parts.push(say("to_discard", { card: name(after.discard) }));
  } else if (diff.restored) {
    parts.push(say("back_to_column", { card: name(diff.restored.card), n: diff.restored.col }), discardNow());
  } else if (diff.undrawn && before.discard) {
    parts.push(say("back_to_stock", { card: name(before.discard) }), discardNow());
  } else {
    return null;
  }
  parts.push(say("stock", { n: after.stock_count }));
  if (after.status !== "playing") parts.push(t(`ui.status.${after.status}`, {}, loc));
  return parts.join("; ");
}
