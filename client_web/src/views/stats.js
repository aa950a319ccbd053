// @ts-check
// Stats: your finished games as the server saw them end (GET /api/players/me/stats with your token):
// played, won, win rate, streaks, the best score and time per mode, and a chart of recent scores.
// Its state and the changes per message are stats_state.js; here: the load, and `render` paints the state.
import { num, t } from "../i18n.js";
import { clock } from "../format.js";
import { el, translate } from "../ui.js";
import { initial, reduce } from "./stats_state.js";

const MODES = ["solo", "race", "daily"];
const MAX_SCORE = 350;
const CHART = { w: 600, h: 180, pad: 4 };

/** @param {import("./app.js").App} app @returns {import("./app.js").View} */
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
          <figure class="chart"></figure>
        </div>
      </div>
    </section>`);
  const q = (s) => /** @type {HTMLElement} */ (root.querySelector(s));
  let view = initial();
  const offs = [];

  /** @param {import("./stats_state.js").Msg} msg */
  function update(msg) {
    const before = view;
    view = reduce(view, msg);
    if (view === before) return;
    if (view.loads !== before.loads) load(view.loads);
    if (view.loaded !== before.loaded) render(view);
  }

  function percent(rate) {
    return rate == null ? "—" : `${num(Math.round(rate * 100))}%`;
  }

  function tile(label, value) {
    const box = el(`<div class="tile"><dt></dt><dd><bdi dir="ltr"></bdi></dd></div>`);
    box.querySelector("dt").textContent = label;
    box.querySelector("dd bdi").textContent = value;
    return box;
  }

  function chart(recent) {
    const fig = q(".chart");
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
      const res = await fetch("/api/players/me/stats", { headers: { Authorization: `Bearer ${token}` } });
      body = res.ok ? await res.json() : null;
    } catch {
      body = null;
    }
    update({ t: "loaded", n, body });
  }

  return {
    root,
    title: "ui.stats.title",
    mount() {
      translate(root);
      offs.push(app.conn.on("ready", () => update({ t: "ready" })));
      update({ t: "asked" });
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      update({ t: "leave" });
    },
    relabel() {
      translate(root);
      render(view);
    },
  };
}
