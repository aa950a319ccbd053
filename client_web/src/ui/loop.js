// @ts-check
// One loop for every view: a message goes through the view's pure `reduce`; when the state changed, `effects`
// does what the change asks beyond the page (send, fetch, navigate, store) and `render` paints the new
// state. A message that changes nothing (`reduce` returns the same state) does neither; a message an effect
// feeds back runs its own pass, and the page is never painted with an older state after a newer one.

/**
 * @template S, M
 * @typedef {object} LoopParts
 * @property {S} initial the state before any message
 * @property {(state: S, msg: M) => S} reduce pure: the state after `msg` (the same object: nothing changed)
 * @property {(before: S, after: S, msg: M) => void} [effects] what a change asks for beyond the page
 * @property {(after: S, before: S, msg: M) => void} [render] paints the changed state
 * @property {(msg: M) => boolean} [quiet] a message whose change runs neither effects nor render (a new
 *   route, when the view's `mount` clears the page itself)
 */

/**
 * @template S, M
 * @typedef {object} Loop
 * @property {(msg: M) => void} update feeds one message through reduce, effects and render
 * @property {() => S} state the state now
 */

/**
 * @template S, M
 * @param {LoopParts<S, M>} parts
 * @returns {Loop<S, M>}
 */
export function loop({ initial, reduce, effects, render, quiet }) {
  let state = initial;
  return {
    update(msg) {
      const before = state;
      const after = reduce(before, msg);
      if (after === before) return;
      state = after;
      if (quiet?.(msg)) return;
      effects?.(before, after, msg);
      if (state !== after) return; // an effect fed a message back: its own pass painted the newer state
      render?.(after, before, msg);
    },
    state: () => state,
  };
}
