// @ts-check
// The other racers' boards, live, for a racer whose own game is over while the race goes on: the race view
// sends `watch`, and the server sends every board as a watcher sees it (fair play: a draw the racers still
// playing have not reached stays face down). The state is the watch view's (watch_state.js); this module
// paints the seats other than mine.
import { Board } from "../ui/board.js";
import { locale } from "../ui/i18n.js";
import { racerName } from "../ui/names.js";
import { progressLine } from "../ui/format.js";
import { el, isolated } from "../ui/ui.js";
import { initial, reduce } from "./watch_state.js";
import { loop } from "../ui/loop.js";

/**
 * @typedef {import("./watch_state.js").WatchState} WatchState
 * @typedef {import("./watch_state.js").Msg} Msg
 * @typedef {import("./watch_state.js").Shown} Shown
 */

/** The rivals' panel: `update` feeds it the server's messages, `paint` shows the seats but `mySeat`. */
export function createRivals() {
  const root = el(`<div class="rivals" hidden></div>`);
  /** The seats as the server tells them: the one loop, with nothing to do beyond the state (`paint` is asked
   * for by the race view, which knows whether to show them). */
  /** @type {import("../ui/loop.js").Loop<WatchState, Msg>} */
  const view = loop({ initial: initial(), reduce });
  /** @type {Map<number, {box: HTMLElement, board: Board, painted: Shown | null}>} */
  let boxes = new Map();
  let builtFor = 0;

  function seatBox(/** @type {number} */ seat) {
    const known = boxes.get(seat);
    if (known) return known;
    const box = el(`<article class="seat panel"><header><b class="seat-name"></b><span class="seat-score" dir="ltr"></span></header><p class="seat-sub"></p></article>`);
    const board = new Board({ interactive: false, compact: true });
    board.el.hidden = true;
    box.append(board.el);
    box.dataset.seat = String(seat);
    root.append(box);
    const seatView = { box, board, painted: /** @type {Shown | null} */ (null) };
    boxes.set(seat, seatView);
    return seatView;
  }

  const setText = (/** @type {Element} */ node, /** @type {string} */ text) => {
    if (node.textContent !== text) node.textContent = text;
  };

  return {
    root,
    /** Follow race `id` from scratch (nothing shown until its `race_watch`). */
    reset(/** @type {string | null} */ id) {
      view.update({ t: "view/mount", id }); // the state of a fresh view of race `id`
      boxes = new Map();
      builtFor = 0;
      root.replaceChildren();
      root.hidden = true;
    },
    /** Whether the server has sent the boards (the `watch` was answered). */
    get watching() {
      return view.state().watches > 0;
    },
    /** @param {Msg} msg @returns {boolean} whether the state changed */
    update(msg) {
      const before = view.state();
      view.update(msg);
      return view.state() !== before;
    },
    /** Show every seat but `mySeat` (`show` false: hide the panel), the times at server time `now`. */
    paint(/** @type {boolean} */ show, /** @type {number | null} */ mySeat, /** @type {number} */ now) {
      const state = view.state();
      root.hidden = !show || state.watches === 0;
      if (root.hidden) return;
      if (state.watches !== builtFor) {
        builtFor = state.watches;
        root.replaceChildren();
        boxes = new Map();
      }
      for (const s of state.seats) {
        if (s.seat === mySeat) continue;
        const seatView = seatBox(s.seat);
        seatView.box.dataset.status = s.progress.status;
        const part = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (seatView.box.querySelector(sel));
        const name = part(".seat-name");
        const text = racerName({ ...s.progress, seat: s.seat });
        if (name.textContent !== text) name.replaceChildren(isolated(text));
        setText(part(".seat-score"), String(s.progress.score ?? 0));
        setText(part(".seat-sub"), progressLine(state.race, s.progress, now));
        if (!s.board || s.board === seatView.painted) continue;
        seatView.painted = s.board;
        seatView.board.el.hidden = false;
        seatView.board.render(s.board, s.diff ? (s.diff.a ?? "tap") : "snapshot", s.diff, locale());
      }
    },
    relabel() {
      for (const seatView of boxes.values()) seatView.board.relabel(locale());
    },
  };
}
