// @ts-check
// Analyse: a finished game replayed with the solver beside it (GET /api/games/<game>/analysis, with this
// browser's token: a solo game is its player's only). Each position can be stepped to; each move says
// whether the deal was winnable before and after it; the mistakes and inaccuracies are marked, and the line
// still open before the first of them is shown step by step on the board. Terms: docs/analysis.md.
import { errorText, locale, num, t } from "../ui/i18n.js";
import { Board } from "../ui/board.js";
import { el, translate, typingOrDialog } from "../ui/ui.js";

/**
 * @typedef {{columns: string[][], discard: string | null, stock_count: number, removed: number, score: number,
 *   status: string}} Shown
 * @typedef {{winnable: boolean | null, best: number}} Verdict
 * @typedef {{n: number, token: string, before: Verdict, after: Verdict, mark: string | null}} Move
 * @typedef {{kind: string, move: number, best: number, steps: {token: string, board: Shown}[]}} Line
 * @typedef {{game: string, code: string, complete: boolean, winnable: boolean | null, best_removed: number,
 *   par: number | null, removed: number, score: number, won: boolean, first_mistake: number | null,
 *   mistakes: number[], inaccuracies: number[], moves: Move[], boards: Shown[], line: Line | null}} Analysis
 */

/** A move token in words: "draw", "undo", "column 4" (row taps: "column 4"). @param {string} token */
export function moveWords(token, loc = locale()) {
  if (token === "d") return t("ui.analysis.draw", undefined, loc);
  if (token === "u") return t("ui.analysis.undo", undefined, loc);
  return t("ui.analysis.column", { n: num(Number(token.split(":")[0]), loc) }, loc);
}

/** "Best possible 350, you 290: 1 mistake (move 23), 2 inaccuracies". */
export function summaryText(/** @type {Analysis} */ a, loc = locale()) {
  const head = t("ui.analysis.summary", { par: a.par == null ? "?" : num(a.par, loc), score: num(a.score, loc) }, loc);
  const mistakes = t("ui.analysis.mistakes", { n: a.mistakes.length, move: a.mistakes[0] ?? "" }, loc);
  const inaccuracies = t("ui.analysis.inaccuracies", { n: a.inaccuracies.length }, loc);
  return `${head}: ${mistakes}, ${inaccuracies}`;
}

function verdictWords(/** @type {Verdict} */ v, /** @type {string} */ loc) {
  if (v.winnable == null) return t("ui.analysis.unknown", undefined, loc);
  if (v.winnable) return t("ui.analysis.winnable", undefined, loc);
  return `${t("ui.analysis.lost", undefined, loc)} (${t("ui.analysis.best", { n: v.best }, loc)})`;
}

/** One move's line: "Move 23: column 4 — before: winnable · after: not winnable (at best 33 cards). Mistake". */
export function moveText(/** @type {Move} */ m, loc = locale()) {
  const what = t("ui.analysis.move", { n: num(m.n, loc), move: moveWords(m.token, loc) }, loc);
  const before = `${t("ui.analysis.before", undefined, loc)}: ${verdictWords(m.before, loc)}`;
  const after = `${t("ui.analysis.after", undefined, loc)}: ${verdictWords(m.after, loc)}`;
  const mark = m.mark ? `. ${t(`ui.analysis.${m.mark}`, undefined, loc)}` : "";
  return `${what} — ${before} · ${after}${mark}`;
}

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createAnalysisView(app) {
  const root = el(`
    <section class="view analysis-view" aria-labelledby="analysis-title">
      <div class="panel analysis-panel">
        <h1 id="analysis-title" data-t="ui.analysis.title"></h1>
        <p class="analysis-status" role="status" aria-live="polite"></p>
        <p class="field-error analysis-error" role="alert" hidden></p>
        <div class="analysis-body" hidden>
          <p class="analysis-summary"></p>
          <p class="analysis-never" hidden></p>
          <p class="analysis-incomplete" data-t="ui.analysis.incomplete" hidden></p>
          <details class="analysis-terms"><summary data-t="ui.analysis.terms_title"></summary><p data-t="ui.analysis.terms"></p></details>
          <h2 class="analysis-line-title" hidden></h2>
          <div class="analysis-board"></div>
          <p class="analysis-caption" aria-live="polite"></p>
          <p class="analysis-verdict"></p>
          <div class="analysis-controls">
            <div class="analysis-bar" role="group" dir="ltr" data-t-aria="ui.analysis.moves_label">
              <button type="button" class="btn icon-btn a-first" data-t-aria="ui.analysis.first"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 5h2v14H6zM19 5v14l-10-7z" fill="currentColor"/></svg></button>
              <button type="button" class="btn icon-btn a-prev" data-t-aria="ui.analysis.prev"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M17 5v14L6 12z" fill="currentColor"/></svg></button>
              <button type="button" class="btn icon-btn a-next" data-t-aria="ui.analysis.next"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 5v14l11-7z" fill="currentColor"/></svg></button>
              <button type="button" class="btn icon-btn a-last" data-t-aria="ui.analysis.last"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M16 5h2v14h-2zM5 5v14l10-7z" fill="currentColor"/></svg></button>
            </div>
            <button type="button" class="btn primary a-line" aria-pressed="false" hidden></button>
          </div>
          <p class="keys-hint analysis-keys" data-t="ui.analysis.keys"></p>
          <h2 id="analysis-moves-title" data-t="ui.analysis.moves_label"></h2>
          <ol class="analysis-moves" aria-labelledby="analysis-moves-title"></ol>
        </div>
      </div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const board = new Board({ interactive: false });
  q(".analysis-board").append(board.el);
  /** @type {Analysis | null} */
  let data = null;
  let gameId = null;
  let pos = 0; // the position shown: 0 is the deal, n the position after move n (or step n of the line)
  let inLine = false;
  let loads = 0;

  function total() {
    if (!data) return 0;
    return inLine && data.line ? data.line.steps.length : data.moves.length;
  }

  /** The board shown now: a position of the game, or a step of the line from the position before its move. */
  function shown() {
    if (!data) return null;
    if (inLine && data.line) return pos === 0 ? data.boards[data.line.move - 1] : data.line.steps[pos - 1].board;
    return data.boards[pos];
  }

  function go(/** @type {number} */ n) {
    if (!data) return;
    pos = Math.max(0, Math.min(total(), n));
    paint();
  }

  function toggleLine() {
    if (!data?.line) return;
    inLine = !inLine;
    pos = inLine ? 0 : data.line.move - 1;
    paint();
  }

  function paint() {
    const loc = locale();
    translate(root);
    if (!data) return;
    const a = data;
    q(".analysis-summary").textContent = summaryText(a, loc);
    const never = q(".analysis-never");
    never.hidden = a.winnable !== false;
    never.textContent = t("ui.analysis.never", { best: num(a.best_removed, loc), removed: num(a.removed, loc) }, loc);
    q(".analysis-incomplete").hidden = a.complete;
    const state = shown();
    board.render({ ...state, held: null }, "snapshot", null, loc);
    board.el.setAttribute("aria-describedby", "analysis-caption");
    const caption = q(".analysis-caption");
    caption.id = "analysis-caption";
    const lineTitle = q(".analysis-line-title");
    const lineButton = /** @type {HTMLButtonElement} */ (q(".a-line"));
    lineButton.hidden = !a.line;
    if (a.line) {
      const key = a.line.kind === "win" ? "ui.analysis.line_win" : "ui.analysis.line_best";
      const title = t(key, { n: num(a.line.move, loc), best: num(a.line.best, loc) }, loc);
      lineTitle.textContent = title;
      lineButton.textContent = inLine ? t("ui.analysis.hide_line", undefined, loc) : t("ui.analysis.show_line", undefined, loc);
      lineButton.setAttribute("aria-pressed", String(inLine));
    }
    lineTitle.hidden = !inLine;
    root.dataset.mode = inLine ? "line" : "game";
    root.dataset.pos = String(pos);
    const verdict = q(".analysis-verdict");
    if (inLine && a.line) {
      const n = a.line.steps.length;
      caption.textContent =
        pos === 0
          ? t("ui.analysis.position", { n: num(a.line.move - 1, loc), total: num(a.moves.length, loc) }, loc)
          : t("ui.analysis.line_step", { i: num(pos, loc), total: num(n, loc), move: moveWords(a.line.steps[pos - 1].token, loc) }, loc);
      verdict.textContent = "";
    } else {
      caption.textContent =
        pos === 0
          ? t("ui.analysis.start", undefined, loc)
          : t("ui.analysis.position", { n: num(pos, loc), total: num(a.moves.length, loc) }, loc);
      const move = pos > 0 ? a.moves[pos - 1] : null;
      verdict.textContent = move ? moveText(move, loc) : "";
      verdict.dataset.mark = move?.mark ?? "";
    }
    /** @type {HTMLButtonElement} */ (q(".a-first")).disabled = pos === 0;
    /** @type {HTMLButtonElement} */ (q(".a-prev")).disabled = pos === 0;
    /** @type {HTMLButtonElement} */ (q(".a-next")).disabled = pos >= total();
    /** @type {HTMLButtonElement} */ (q(".a-last")).disabled = pos >= total();
    const list = q(".analysis-moves");
    if (list.childElementCount !== a.moves.length || list.dataset.loc !== loc) {
      list.dataset.loc = loc;
      list.replaceChildren(
        ...a.moves.map((m) => {
          const li = document.createElement("li");
          const b = document.createElement("button");
          b.type = "button";
          b.className = `move-chip${m.mark ? ` ${m.mark}` : ""}`;
          b.dataset.n = String(m.n);
          b.dir = "ltr";
          // the screen reader's name is the whole verdict; the chip shows the number and the move in short
          const said = document.createElement("span");
          said.className = "sr-only";
          said.textContent = moveText(m, loc);
          const shown = document.createElement("span");
          shown.setAttribute("aria-hidden", "true");
          shown.textContent = `${num(m.n, loc)}. ${m.token === "d" ? "↻" : m.token === "u" ? "↶" : m.token}`;
          b.append(said, shown);
          b.addEventListener("click", () => {
            inLine = false;
            go(m.n);
          });
          li.append(b);
          return li;
        }),
      );
    }
    for (const b of list.querySelectorAll("button")) {
      const current = !inLine && Number(/** @type {HTMLElement} */ (b).dataset.n) === pos;
      if (current) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    }
  }

  async function load(/** @type {string} */ id) {
    const mine = ++loads;
    const status = q(".analysis-status");
    const error = q(".analysis-error");
    status.textContent = t("ui.analysis.loading");
    error.hidden = true;
    q(".analysis-body").hidden = true;
    delete root.dataset.loaded;
    let answer = null;
    let body = null;
    try {
      answer = await fetch(`/api/games/${encodeURIComponent(id)}/analysis`, {
        headers: await app.conn.authHeaders(),
      });
      body = await answer.json();
    } catch {
      body = null;
    }
    if (mine !== loads) return;
    status.textContent = "";
    if (!answer?.ok || !body) {
      error.hidden = false;
      error.dataset.code = body?.error ?? "";
      error.textContent = body?.error ? errorText(body.error) : t("ui.analysis.failed");
      root.dataset.loaded = "error";
      return;
    }
    data = body;
    inLine = false;
    pos = body.first_mistake ?? body.moves.length; // the move that lost the win, else the end
    q(".analysis-body").hidden = false;
    paint();
    root.dataset.loaded = "1";
  }

  q(".a-first").addEventListener("click", () => go(0));
  q(".a-prev").addEventListener("click", () => go(pos - 1));
  q(".a-next").addEventListener("click", () => go(pos + 1));
  q(".a-last").addEventListener("click", () => go(total()));
  q(".a-line").addEventListener("click", () => toggleLine());
  // the transport reads left to right in every language (as media controls do): ← is always back
  function onKey(/** @type {KeyboardEvent} */ e) {
    if (e.defaultPrevented || typingOrDialog(e) || e.altKey || e.ctrlKey || e.metaKey || !data) return;
    if (e.key === "ArrowLeft") go(pos - 1);
    else if (e.key === "ArrowRight") go(pos + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(total());
    else if (e.key === "l" || e.key === "L" || e.code === "KeyL") toggleLine();
    else return;
    e.preventDefault();
  }
  root.tabIndex = -1;

  return {
    root,
    title: "ui.analysis.title",
    mount(params) {
      translate(root);
      data = null;
      gameId = params?.id ?? null;
      if (gameId) load(gameId);
      document.addEventListener("keydown", onKey);
      root.focus({ preventScroll: true });
    },
    unmount() {
      loads++;
      document.removeEventListener("keydown", onKey);
    },
    relabel() {
      if (data) paint();
      else translate(root);
    },
  };
}
