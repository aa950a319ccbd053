// @ts-check
import { RULE } from "../net/messages.js";
// The seeds' example deal, GO1-E-AAAAAAB, as the rules show it: its opening position and the three moves
// of the example (draw 8♠, 9♣ from column 5, 8♣ from column 2). The walkthrough and the rules page play it
// in the page, without the server; tests/browser/test_learn.py checks every card against the engine.
export const EXAMPLE = {
  code: "GO1-E-AAAAAAB",
  rules: RULE.EASY,
  columns: [
    ["6C", "5S", "QS", "TS", "6H"],
    ["2S", "KC", "4S", "2C", "8C"],
    ["TC", "AH", "2D", "5D", "JS"],
    ["3D", "QH", "AS", "KD", "4C"],
    ["JH", "3C", "7D", "8H", "9C"],
    ["TH", "4H", "7H", "7C", "8D"],
    ["3S", "7S", "3H", "9S", "5C"],
  ],
  discard: "AC",
  stock_count: 16,
  /**
   * The example's line: each move and the card it puts on the discard.
   * @type {({a: "draw", card: string} | {a: "tap", col: number, card: string})[]}
   */
  line: [
    { a: "draw", card: "8S" },
    { a: "tap", col: 5, card: "9C" },
    { a: "tap", col: 2, card: "8C" },
  ],
};

/**
 * The example's position after its first `n` moves, in the shown-state shape the board paints.
 * @param {number} n
 * @returns {import("./gamestate.js").GameState}
 */
export function exampleState(n) {
  const columns = EXAMPLE.columns.map((col) => col.slice());
  let { discard, stock_count: stock } = EXAMPLE;
  let score = 0;
  for (const move of EXAMPLE.line.slice(0, n)) {
    if (move.a === "draw") stock -= 1;
    else {
      columns[move.col - 1].pop();
      score += 10;
    }
    discard = move.card;
  }
  return {
    game: "example", v: n, role: "player", code: EXAMPLE.code, rules: EXAMPLE.rules, variants: {},
    columns, discard, stock_count: stock, score, moves: n, undos: 0, status: "playing", can_undo: false,
  };
}

/**
 * What move `n` (0-based) changed, as the diff the board animates.
 * @param {number} n
 */
export function exampleDiff(n) {
  const move = EXAMPLE.line[n];
  return move.a === "draw" ? { a: "draw", drawn: true } : { a: "tap", removed: { col: move.col, card: move.card } };
}
