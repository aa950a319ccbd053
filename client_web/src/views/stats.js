// @ts-check
// Stats: your finished games as the server saw them end (GET /api/players/me/stats with your token):
// played, won, win rate, streaks, the best score and time per mode, and a chart of recent scores.
// Its state and the changes per message are stats_state.js; here: the load, and `render` paints the state.
import { num, t } from "../ui/i18n.js";
import { clock } from "../ui/format.js";
import { el, translate } from "../ui/ui.js";
import { initial, reduce } from "./stats_state.js";
import { loop } from "../ui/loop.js";
import { createRatingPanel } from "../features/ratings.js";
import { bearer } from "../net/net.js";

const MODES = ["solo", "race", "daily"];
const MAX_SCORE = 350;
const CHART = { w: 600, h: 180, pad: 4 };

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createStatsView(app) {
  const root = el(`
    <section class="view stats-view" aria-labelledby="stats-title">
      <div class="panel">
        <h1 id="stats-title" data-t="ui.stats.title"></h1>
        <p class="field-error stats-error" role="alert" hidden></p>
        <p class="empty stats-empty" data-t="ui.stats.empty" hidden></p>
        <div class="stats-body" hidden>
          <dl class="tiles"></dl>
          <div class="table-wrap"><table class="modes-table"><thead><tr>
            <th data-t="ui.stats.mode"></th><th data-t="ui.stats.played"></th><th data-t="ui.stats.won"></th>
            <th data-t="ui.stats.best_score"></th><th data-t="ui.stats.best_time"></th>
          </tr></thead><tbody></tbody></table></div>
          <h2 id="chart-title" data-t="ui.stats.recent"></h2>
          <figure class="chart scores-chart"></figure>
        </div>
      </div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const ratings = createRatingPanel(); // quick races: rating, its chart, win rate by opponent
  root.prepend(ratings.panel); // first: how good you are now, then your games
  const v = loop({
    initial: initial(),
    reduce,
    effects: (before, after) => {
      if (after.loads !== before.loads) load(after.loads);
    },
    render: (after, before) => {
      if (after.loaded !== before.loaded) render(after);
    },
  });
  /** @type {(() => void)[]} */
  const offs = [];

  /** @param {number | null | undefined} rate */
  function percent(rate) {
    return rate == null ? "—" : `${num(Math.round(rate * 100))}%`;
  }

  /** @param {string} label @param {string} value */
  function tile(label, value) {
    const box = el(`<div class="tile"><dt></dt><dd><bdi dir="ltr"></bdi></dd></div>`);
    /** @type {HTMLElement} */ (box.querySelector("dt")).textContent = label;
    /** @type {HTMLElement} */ (box.querySelector("dd bdi")).textContent = value;
    return box;
  }

  /** @param {{score: number, status: string}[]} recent the last games, oldest first */
  function chart(recent) {
    const fig = q(".scores-chart"); // not the rating panel's chart, also in this view
    fig.replaceChildren();
    if (!recent.length) return;
    const { w, h, pad } = CHART;
    const step = w / Math.max(recent.length, 10);
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.setAttribute("role", "img");
    const scores = recent.map((g) => g.score).join(", ");
    svg.setAttribute("aria-label", `${t("ui.stats.chart", { n: recent.length })}: ${scores}`);
    recent.forEach((g, i) => {
      const bh = Math.max(2, ((h - 2 * pad) * g.score) / MAX_SCORE);
      const bar = document.createElementNS(ns, "rect");
      bar.setAttribute("x", String(i * step + pad));
      bar.setAttribute("y", String(h - pad - bh));
      bar.setAttribute("width", String(Math.max(2, step - 2 * pad)));
      bar.setAttribute("height", String(bh));
      bar.setAttribute("rx", "3");
      bar.setAttribute("class", `bar-${g.status === "won" ? "won" : "other"}`);
      svg.append(bar);
    });
    fig.append(svg);
  }

  /** @param {import("./stats_state.js").StatsState} s */
  function render(s) {
    const error = q(".stats-error");
    error.hidden = !s.failed;
    error.textContent = s.failed ? t("ui.offline") : "";
    if (s.loaded) root.dataset.loaded = String(s.loaded);
    const data = s.data;
    if (!data) return;
    const empty = data.played === 0;
    q(".stats-empty").hidden = !empty;
    q(".stats-body").hidden = empty;
    if (empty) return;
    q(".tiles").replaceChildren(
      tile(t("ui.stats.played"), num(data.played)),
      tile(t("ui.stats.won"), num(data.won)),
      tile(t("ui.stats.win_rate"), percent(data.win_rate)),
      tile(t("ui.stats.win_streak"), num(data.win_streak)),
      tile(t("ui.stats.best_win_streak"), num(data.best_win_streak)),
      tile(t("ui.stats.daily_streak"), num(data.daily_streak)),
    );
    const rows = MODES.map((mode) => {
      const m = data.modes[mode];
      const tr = document.createElement("tr");
      tr.dataset.mode = mode;
      const best = m.best_score == null ? "—" : num(m.best_score);
      for (const value of [t(`ui.stats.${mode}`), num(m.played), num(m.won), best, clock(m.best_time, { final: true })]) {
        const td = document.createElement("td");
        td.textContent = value;
        tr.append(td);
      }
      return tr;
    });
    q(".modes-table tbody").replaceChildren(...rows);
    chart(data.recent ?? []);
  }

  /** @param {number} n the load's number (stats_state.js drops an older one's answer) */
  async function load(n) {
    const token = app.conn.token;
    if (!token) return; // asked again once the connection says who we are
    let body = null;
    try {
      const res = await fetch("/api/players/me/stats", { headers: bearer(token) });
      body = res.ok ? await res.json() : null;
    } catch {
      body = null;
    }
    v.update({ t: "loaded", n, body });
  }

  return {
    root,
    title: "ui.stats.title",
    mount() {
      translate(root);
      offs.push(app.conn.on("ready", () => v.update({ t: "ready" })));
      offs.push(app.conn.on("ready", () => ratings.load(app.conn.token)));
      v.update({ t: "asked" });
      ratings.load(app.conn.token);
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      v.update({ t: "leave" });
    },
    relabel() {
      translate(root);
      render(v.state());
      ratings.paint();
    },
  };
}
