// @ts-check
// The walkthrough: the seeds' example deal in a dialog, played in the page (no server): draw, 9♣, 8♣, with
// each step's explanation; the card to play is highlighted, another one shakes. Skip (or Escape) closes it.
import { Board } from "../ui/board.js";
import { EXAMPLE, exampleDiff, exampleState } from "../game/example.js";
import { locale, t } from "../ui/i18n.js";
import { aid, markPlayable } from "../ui/playable.js";
import { safeStorage } from "../net/storage.js";
import { el, translate } from "../ui/ui.js";

const STEPS = ["intro", "draw", "nine", "eight", "done"];
const SEEN = "golfrace.learned"; // set once the walkthrough was finished or skipped

export function walkthroughSeen() {
  return safeStorage()?.getItem(SEEN) === "1";
}

function markWalkthroughSeen() {
  safeStorage()?.setItem(SEEN, "1");
}
const STAY_MS = 3_600_000; // the highlight stays until the move is made

/**
 * @param {import("../ui/app.js").App} app
 * @returns {Promise<void>} once the walkthrough closed
 */
export function runWalkthrough(app) {
  const d = /** @type {HTMLDialogElement} */ (
    el(`
    <dialog class="dlg walkthrough" aria-labelledby="walk-title" aria-describedby="walk-text">
      <div class="walk-head">
        <h2 id="walk-title" data-t="ui.learn.title"></h2>
        <span class="walk-step" dir="auto"></span>
      </div>
      <p id="walk-text" class="walk-text" aria-live="polite"></p>
      <p class="walk-wrong" role="status"></p>
      <div class="walk-board"></div>
      <label class="switch walk-aid"><input type="checkbox" name="aid"><span><b data-t="ui.learn.show_playable"></b><small data-t="ui.learn.show_playable_help"></small></span></label>
      <div class="dlg-actions">
        <button type="button" class="btn skip" data-t="ui.learn.skip"></button>
        <button type="button" class="btn play-deal" data-t="ui.learn.play_deal" hidden></button>
        <button type="button" class="btn primary next" data-t="ui.learn.next"></button>
      </div>
    </dialog>`)
  );
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (d.querySelector(s));
  let step = 0;
  let state = exampleState(0);
  const board = new Board({
    onTap: (col, row, card) => tried({ a: "tap", col, covered: row != null }, card),
    onDraw: () => tried({ a: "draw" }, board.stock),
  });
  q(".walk-board").append(board.el);
  const aidBox = /** @type {HTMLInputElement} */ (q("input[name=aid]"));
  aidBox.checked = aid.on;
  aidBox.addEventListener("change", () => {
    aid.on = aidBox.checked;
    markPlayable(board.el, state, aid.on);
  });

  /** The move the current step asks for, or null on a step that only explains. */
  function expected() {
    const n = step - 1;
    return n >= 0 && n < EXAMPLE.line.length ? EXAMPLE.line[n] : null;
  }

  /**
   * @param {string} [change]
   * @param {import("../game/gamestate.js").Moved | null} [diff]
   */
  function paint(change = "snapshot", diff = null) {
    const name = STEPS[step];
    board.render(state, change, diff, locale());
    markPlayable(board.el, state, aid.on);
    q(".walk-step").textContent = t("ui.learn.step_n", { n: step + 1, total: STEPS.length });
    q(".walk-text").textContent = t(`ui.learn.${name}`);
    q(".walk-wrong").textContent = "";
    const move = expected();
    board.highlight(move ? (move.a === "tap" ? { a: "tap", col: move.col } : { a: "draw" }) : null, STAY_MS);
    q(".next").hidden = Boolean(move);
    q(".next").dataset.t = name === "done" ? "ui.learn.finish" : "ui.learn.next";
    q(".play-deal").hidden = name !== "done";
    q(".skip").hidden = name === "done";
    translate(q(".dlg-actions"));
    d.dataset.step = name;
  }

  /**
   * @param {{a: "tap", col: number, covered?: boolean} | {a: "draw"}} move
   * @param {Element | null} target
   */
  function tried(move, target) {
    const want = expected();
    if (!want) return;
    if (move.a !== want.a || (move.a === "tap" && (move.col !== (want.a === "tap" ? want.col : undefined) || move.covered))) {
      q(".walk-wrong").textContent = t("ui.learn.wrong");
      board.shake(target);
      return;
    }
    const n = step - 1;
    state = exampleState(n + 1);
    step += 1;
    paint(want.a, { ...exampleDiff(n), game: "example", v: n + 1, from: n });
    (step === STEPS.length - 1 ? q(".next") : null)?.focus();
  }

  // the board's keys inside the dialog: 1–7 and Space/D (the page's own keys stand aside while it is open)
  d.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const digit = /^(Digit|Numpad)([1-7])$/.exec(e.code)?.[2] ?? (/^[1-7]$/.test(e.key) ? e.key : null);
    const onButton = /** @type {Element} */ (e.target)?.closest?.("button, input");
    if (digit) tried({ a: "tap", col: Number(digit) }, board.columns[Number(digit) - 1].lastElementChild);
    else if ((e.key === " " && !onButton) || e.key.toLowerCase() === "d" || e.code === "KeyD") tried({ a: "draw" }, board.stock);
    else return;
    e.preventDefault();
  });

  return new Promise((/** @type {() => void} */ resolve) => {
    const done = () => {
      markWalkthroughSeen();
      d.close();
    };
    q(".skip").addEventListener("click", done);
    q(".next").addEventListener("click", () => {
      if (STEPS[step] === "done") return done();
      step += 1;
      paint();
    });
    q(".play-deal").addEventListener("click", () => {
      done();
      app.playDeal?.(EXAMPLE.code);
    });
    d.addEventListener("close", () => {
      markWalkthroughSeen(); // Escape skips too
      d.remove();
      resolve();
    });
    translate(d);
    document.body.append(d);
    d.showModal();
    paint();
    q(".next").focus();
  });
}
