// @ts-check
// Where a daily result stands among the day's scores (pure: the dialog and the tests use it).

/**
 * Where the player stands among today's scores: tied with every other player (`tied`: how many), else in the
 * top `top` per cent (1 for the best alone); null with nobody else yet. On ties a percentile says nothing
 * ("better than 50 %" when everyone made 350).
 * @param {[number, number][]} scores  [score, players] pairs
 * @param {number | null} mine
 * @param {boolean} counted  whether the player's own result is among the scores (accounts only)
 * @returns {{tied: number} | {top: number} | null}
 */
export function standing(scores, mine, counted = true) {
  const total = scores.reduce((sum, [, n]) => sum + n, 0);
  const others = counted ? total - 1 : total;
  if (others < 1 || mine == null) return null;
  const better = scores.reduce((sum, [score, n]) => sum + (score > mine ? n : 0), 0);
  const same = (scores.find(([score]) => score === mine)?.[1] ?? 0) - (counted ? 1 : 0);
  if (better === 0 && same === others) return { tied: others };
  return { top: Math.max(1, Math.ceil((100 * (better + 1)) / (others + 1))) };
}
