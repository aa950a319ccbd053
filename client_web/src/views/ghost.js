// @ts-check
// Ghost race: a finished game's record (GET /api/ghosts/<game>, served only once its code is public) played
// back at its recorded times on a second board, beside a casual solo game of the same code (`new`: it never
// enters a board). The ghosts of a deal: GET /api/ghosts?code=… (or ?day=… for a day's leader, once over).
// After the race: "you were 2.3 s ahead at move 30", with the gap over the moves as a small SVG chart.
import { Board } from "../ui/board.js";
import { applyDiff } from "../game/gamestate.js";
import { boardKeys } from "../ui/keys.js";
import { errorText, locale, num, t } from "../ui/i18n.js";
import { GameSession } from "../features/session.js";
import { el, isolatedText, translate } from "../ui/ui.js";
import { clock } from "../ui/format.js";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * One recorded move of a ghost (GET /api/ghosts/<game>): a diff's fields, and `t_ms` from the start.
 * @typedef {Omit<import("../game/gamestate.js").GameDiff, "game" | "v" | "from"> & {t_ms: number}} GhostStep
 */

/**
 * The gap after each move both made: the ghost's time minus yours, in ms (positive: you were ahead).
 * @param {number[]} mine  ms from the start to each of your moves
 * @param {number[]} ghost  the same for the ghost
 * @returns {number[]}
 */
export function gaps(mine, ghost) {
  const n = Math.min(mine.length, ghost.length);
  return Array.from({ length: n }, (_, i) => ghost[i] - mine[i]);
}

/** "You were 2.3 s ahead at move 30" (the last move both made), or null before any. */
export function gapText(/** @type {number[]} */ g, loc = locale()) {
  if (g.length === 0) return null;
  const last = g[g.length - 1];
  const s = (Math.abs(last) / 1000).toLocaleString(loc, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const key = last > 0 ? "ui.ghost.ahead" : last < 0 ? "ui.ghost.behind" : "ui.ghost.even";
  return t(key, { s, n: num(g.length, loc) }, loc);
}

/**
 * The gap over the moves as an SVG path in a `w`×`h` box: the middle line is even, up is ahead.
 * @param {number[]} g
 * @returns {string}
 */
export function chartPath(g, w = 300, h = 80) {
  if (g.length === 0) return "";
  const top = Math.max(1, ...g.map(Math.abs));
  const x = (/** @type {number} */ i) => (g.length === 1 ? w / 2 : (i / (g.length - 1)) * w);
  const y = (/** @type {number} */ v) => h / 2 - (v / top) * (h / 2 - 2);
  return g.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)} ${y(v).toFixed(1)}`).join(" ");
}

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createGhostView(app) {
  const root = el(`
    <section class="view ghost-view" aria-labelledby="ghost-title">
      <div class="panel ghost-panel">
        <h1 id="ghost-title" data-t="ui.ghost.title"></h1>
        <p class="ghost-status" role="status" aria-live="polite"></p>
        <p class="field-error ghost-error" role="alert" hidden></p>
        <div class="ghost-pick" hidden>
          <p data-t="ui.ghost.pick"></p>
          <ul class="ghost-list"></ul>
        </div>
        <div class="ghost-race" hidden>
          <div class="ghost-boards">
            <div class="ghost-side ghost-you"><h2 data-t="ui.ghost.you"></h2><p class="ghost-score" dir="ltr"></p><div class="ghost-slot"></div></div>
            <div class="ghost-side ghost-them"><h2 class="ghost-name"></h2><p class="ghost-score" dir="ltr"></p><div class="ghost-slot"></div></div>
          </div>
          <p class="ghost-gap" aria-live="polite"></p>
          <figure class="ghost-chart" hidden>
            <svg viewBox="0 0 300 80" role="img" preserveAspectRatio="none"><title></title>
              <line x1="0" y1="40" x2="300" y2="40" class="ghost-even"/><path class="ghost-line" fill="none"/></svg>
            <figcaption data-t="ui.ghost.chart"></figcaption>
          </figure>
          <button type="button" class="btn primary ghost-again" data-t="ui.ghost.again" hidden></button>
        </div>
      </div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const mineBoard = new Board({
    onTap: (col, row) => session.act("tap", col, row),
    onDraw: () => session.act("draw"),
  });
  const ghostBoard = new Board({ interactive: false });
  q(".ghost-you .ghost-slot").append(mineBoard.el);
  q(".ghost-them .ghost-slot").append(ghostBoard.el);

  /** @type {string | null} */
  let target = null; // the code (or the day) whose ghosts are listed
  let loads = 0;
  /** @type {any} */
  let record = null;
  let t0 = 0;
  /** @type {number[]} */
  let mineTimes = [];
  /** @type {number[]} */
  let ghostTimes = [];
  /** @type {ReturnType<typeof setTimeout>[]} */
  let timers = [];
  let mineOver = false;
  let ghostOver = false;
  /** @type {any} */
  let ghostState = null;

  const session = new GameSession(app.conn, {
    onChange: (state, change) => {
      mineBoard.render(state, change, null, locale());
      if (change !== "snapshot" && t0) mineTimes.push(performance.now() - t0);
      root.dataset.mine = String(mineTimes.length);
      q(".ghost-you .ghost-score").textContent = num(state.score);
      if (state.status !== "playing") mineOver = true;
      paintGap();
    },
  });

  function stop() {
    for (const id of timers.splice(0)) clearTimeout(id);
  }

  function fail(/** @type {string} */ code) {
    const error = q(".ghost-error");
    error.hidden = false;
    error.dataset.code = code;
    error.textContent = errorText(code);
  }

  /** An HTTP answer's JSON: `{ok, body}` (not ok, `{error: "offline"}`: no answer at all).
   * @param {string} url @returns {Promise<{ok: boolean, body: any}>} */
  async function getJson(url) {
    try {
      const answer = await fetch(url, { headers: await app.conn.authHeaders() });
      return { ok: answer.ok, body: await answer.json() };
    } catch {
      return { ok: false, body: { error: "offline" } };
    }
  }

  async function list() {
    const mine = ++loads;
    stop();
    q(".ghost-error").hidden = true;
    q(".ghost-race").hidden = true;
    q(".ghost-pick").hidden = true;
    q(".ghost-status").textContent = t("ui.ghost.loading");
    const query = target && DAY.test(target) ? `day=${target}` : `code=${encodeURIComponent(target ?? "")}`;
    const { ok, body } = await getJson(`/api/ghosts?${query}`);
    if (mine !== loads) return;
    q(".ghost-status").textContent = "";
    if (!ok) return fail(body?.error ?? "internal");
    const items = (body.ghosts ?? []).map((/** @type {Record<string, any>} */ g) => {
      const li = el(`<li><button type="button" class="btn ghost-choice"></button></li>`);
      const button = /** @type {HTMLButtonElement} */ (li.querySelector("button"));
      button.dataset.kind = g.kind;
      button.textContent = `${t(`ui.ghost.kind_${g.kind}`)}: ${isolatedText(g.name ?? "")} · ${num(g.score)} · ${clock(g.elapsed, { final: true })}`;
      button.addEventListener("click", () => race(g.game));
      return li;
    });
    q(".ghost-list").replaceChildren(...items);
    q(".ghost-pick").hidden = false;
    if (!items.length) q(".ghost-status").textContent = t("ui.ghost.none");
    root.dataset.ghosts = String(items.length);
  }

  async function race(/** @type {string} */ game) {
    const mine = ++loads;
    stop();
    q(".ghost-status").textContent = t("ui.ghost.loading");
    const { ok, body } = await getJson(`/api/ghosts/${encodeURIComponent(game)}`);
    if (mine !== loads) return;
    q(".ghost-status").textContent = "";
    if (!ok) return fail(body?.error ?? "internal");
    record = body;
    mineTimes = [];
    ghostTimes = [];
    mineOver = false;
    ghostOver = false;
    t0 = 0;
    delete root.dataset.over;
    root.dataset.mine = root.dataset.ghost = "0";
    ghostState = {
      game: record.game, v: 0, columns: record.deal.columns, discard: record.deal.discard,
      stock_count: record.deal.stock.length, score: 0, moves: 0, undos: 0, status: "playing",
    };
    ghostBoard.render(ghostState, "snapshot", null, locale());
    q(".ghost-name").textContent = record.name ?? "";
    q(".ghost-them .ghost-score").textContent = num(0);
    q(".ghost-pick").hidden = true;
    q(".ghost-race").hidden = false;
    q(".ghost-chart").hidden = true;
    q(".ghost-again").hidden = true;
    q(".ghost-gap").textContent = "";
    try {
      await session.newGame({ code: record.code }); // casual: a solo game never enters a board
    } catch (e) {
      return fail(/** @type {{code?: string} | undefined} */ (e)?.code ?? "internal");
    }
    if (mine !== loads) return;
    t0 = performance.now();
    root.dataset.racing = "1";
    record.steps.forEach((/** @type {GhostStep} */ step, /** @type {number} */ i) => {
      timers.push(setTimeout(() => ghostMove(step, i), step.t_ms));
    });
    if (!record.steps.length) ghostOver = true;
  }

  /** @param {GhostStep} step @param {number} i */
  function ghostMove(step, i) {
    const diff = { ...step, game: ghostState.game, v: i + 1, from: i };
    ghostState = applyDiff(ghostState, diff).state;
    ghostTimes.push(performance.now() - t0);
    root.dataset.ghost = String(ghostTimes.length);
    ghostBoard.render(ghostState, step.a ?? "snapshot", diff, locale());
    q(".ghost-them .ghost-score").textContent = num(ghostState.score);
    if (i + 1 >= record.steps.length) ghostOver = true;
    paintGap();
  }

  function paintGap() {
    if (!record) return;
    const g = gaps(mineTimes, record.steps.map((/** @type {GhostStep} */ s) => s.t_ms));
    const text = gapText(g);
    q(".ghost-gap").textContent = text ?? "";
    // the race is over for you once your game ends, or once you have made every move of a finished ghost
    if (!mineOver && !(ghostOver && mineTimes.length >= record.steps.length)) return;
    root.dataset.over = "1";
    const chart = q(".ghost-chart");
    chart.hidden = g.length === 0;
    q(".ghost-line").setAttribute("d", chartPath(g));
    const title = /** @type {Element} */ (chart.querySelector("title"));
    title.textContent = text ?? "";
    q(".ghost-again").hidden = false;
  }

  q(".ghost-again").addEventListener("click", () => list());

  const onKey = boardKeys({
    tap: (col) => session.act("tap", col),
    draw: () => session.act("draw"),
    undo: () => session.act("undo"),
  });

  return {
    root,
    title: "ui.ghost.title",
    mount(params) {
      target = params?.id ?? null;
      translate(root);
      document.addEventListener("keydown", onKey);
      list();
    },
    unmount() {
      document.removeEventListener("keydown", onKey);
      stop();
      loads++;
    },
    relabel() {
      translate(root);
      if (ghostState) ghostBoard.relabel(locale());
      if (session.state) mineBoard.relabel(locale());
      paintGap();
    },
  };
}
