// @ts-check
// The board description a screen reader reads: a port of server/golfrace/engine/describe.py that uses the
// same catalog entries ("describe" and "card"), so the page and the engine say exactly the same thing.
import { cardName, catalog, format, pluralCategory } from "./i18n.js";

/**
 * @param {string[][]} columns
 * @param {string | null | undefined} discard
 * @param {number} stockCount
 * @param {string} [loc]
 * @returns {string}
 */
export function describeBoard(columns, discard, stockCount, loc) {
  const texts = catalog(loc).describe;
  const stock = format(texts.stock[pluralCategory(stockCount, loc)], { n: stockCount });
  const top = discard ? format(texts.discard, { card: cardName(discard, loc) }) : texts.discard_empty;
  const parts = columns.map((column, i) => {
    const n = i + 1;
    if (!column.length) return format(texts.column_empty, { n });
    const names = column.map((c) => cardName(c, loc));
    return format(texts.column, { n, cards: names.join(", "), free: names[names.length - 1] });
  });
  const body = parts.join("; ");
  return `${stock}; ${top}. ${body.slice(0, 1).toUpperCase()}${body.slice(1)}.`;
}

/**
 * @param {import("../game/gamestate.js").Paintable} shown  a BoardState
 * @param {string} [loc]
 * @returns {string}
 */
export function describeState(shown, loc) {
  const state = /** @type {import("../game/gamestate.js").BoardState} */ (shown);
  return describeBoard(state.columns, state.discard, state.stock_count, loc);
}
