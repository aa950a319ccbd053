// @ts-check
// Quick-race ratings on the page: the rating boards (GET /api/ratings/<rules>, beside the per-deal and
// daily boards) and a player's own ratings (GET /api/players/me/ratings: rating, provisional mark, a
// rating-over-time chart, the win rate against each opponent kind) for the stats and profile pages.
import { num, t } from "../ui/i18n.js";
import { el, isolated, translate } from "../ui/ui.js";
import { RULES } from "../net/messages.js";
import { bearer } from "../net/net.js";

const CHART = { w: 600, h: 160, pad: 8 };

/** The rating boards of both rule sets; `load()` fetches them again. */
export function createRatingBoards() {
  const panel = el(`
    <div class="panel rating-boards" data-testid="rating-boards">
      <h2 data-t="pool.board"></h2>
      <div class="rating-board-pair"></div>
    </div>`);
  const pair = /** @type {HTMLElement} */ (panel.querySelector(".rating-board-pair"));
  async function load() {
    translate(panel);
    const boxes = await Promise.all(
      RULES.map(async (rules) => {
        const box = el(`
          <section class="rating-board" data-rules="${rules}">
            <h3 data-t="pool.${rules}"></h3>
            <div class="table-wrap"><table class="board-table"><thead><tr>
              <th>#</th><th data-t="ui.name"></th><th data-t="pool.rating"></th>
            </tr></thead><tbody></tbody></table></div>
            <p class="empty rating-empty" data-t="pool.board_empty" hidden></p>
          </section>`);
        translate(box);
        let entries = [];
        try {
          const res = await fetch(`/api/ratings/${rules}?limit=20`);
          entries = res.ok ? (await res.json()).entries : [];
        } catch {
          entries = [];
        }
        const rows = entries.map((/** @type {{rank: number, name: string, rating: number}} */ e) => {
          const tr = document.createElement("tr");
          for (const value of [String(e.rank), isolated(e.name), num(e.rating)]) {
            const td = document.createElement("td");
            td.append(value);
            tr.append(td);
          }
          return tr;
        });
        box.querySelector("tbody")?.replaceChildren(...rows);
        /** @type {HTMLElement} */ (box.querySelector(".rating-empty")).hidden = rows.length > 0;
        /** @type {HTMLElement} */ (box.querySelector(".table-wrap")).hidden = rows.length === 0;
        return box;
      }),
    );
    pair.replaceChildren(...boxes);
  }
  return { panel, load };
}

/** The player's own ratings; `load(token)` fetches them (nothing is shown without a quick race). */
export function createRatingPanel() {
  const panel = el(`
    <div class="panel my-ratings" data-testid="my-ratings" hidden>
      <h2 data-t="pool.rating"></h2>
      <div class="my-rating-pair"></div>
    </div>`);
  const pair = /** @type {HTMLElement} */ (panel.querySelector(".my-rating-pair"));
  /** @type {any} */
  let data = null;

  function paint() {
    translate(panel);
    if (!data) return;
    const played = RULES.filter((r) => data[r]?.races > 0);
    panel.hidden = played.length === 0;
    pair.replaceChildren(...played.map((rules) => section(rules, data[rules])));
  }

  async function load(/** @type {string | null} */ token) {
    if (!token) return;
    try {
      const res = await fetch("/api/players/me/ratings", { headers: bearer(token) });
      data = res.ok ? await res.json() : null;
    } catch {
      data = null;
    }
    paint();
  }
  return { panel, load, paint };
}

function section(/** @type {string} */ rules, /** @type {any} */ r) {
  const box = el(`
    <section class="my-rating" data-rules="${rules}">
      <h3 data-t="pool.${rules}"></h3>
      <p class="rating-now"><bdi dir="ltr" class="rating-value"></bdi> <span class="rating-mark"></span></p>
      <figure class="chart rating-chart"></figure>
      <h4 data-t="pool.vs"></h4>
      <table class="vs-table"><tbody></tbody></table>
    </section>`);
  translate(box);
  /** @type {HTMLElement} */ (box.querySelector(".rating-value")).textContent = r.provisional ? `${r.rating}?` : String(r.rating);
  /** @type {HTMLElement} */ (box.querySelector(".rating-mark")).textContent = r.provisional ? t("pool.provisional") : "";
  box.querySelector(".rating-chart")?.append(chart(r.history ?? [], rules));
  const rows = Object.entries(r.vs ?? {}).map(([kind, v]) => {
    const tr = document.createElement("tr");
    const label = kind.startsWith("bot:") ? t("pool.vs_bot", { n: kind.slice(4) }) : t("pool.vs_human");
    const rate = v.races ? `${num(Math.round((100 * v.won) / v.races))}%` : "—";
    for (const value of [label, `${rate} (${num(v.won)}/${num(v.races)})`]) {
      const td = document.createElement("td");
      td.textContent = value;
      tr.append(td);
    }
    return tr;
  });
  box.querySelector(".vs-table tbody")?.replaceChildren(...rows);
  return box;
}

/** A line of the rating after each quick race, oldest first. */
function chart(/** @type {{rating: number}[]} */ history, /** @type {string} */ rules) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const { w, h, pad } = CHART;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${t("pool.chart")} (${t(`pool.${rules}`)}): ${history.map((p) => p.rating).join(", ")}`);
  svg.setAttribute("direction", "ltr"); // time runs left to right in every language, as on the scores chart
  if (!history.length) return svg;
  const values = history.map((p) => p.rating);
  const lo = Math.min(...values) - 20;
  const hi = Math.max(...values) + 20;
  const x = (/** @type {number} */ i) => pad + (history.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (history.length - 1));
  const y = (/** @type {number} */ v) => h - pad - ((v - lo) * (h - 2 * pad)) / (hi - lo);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("class", "rating-line");
  svg.append(line);
  values.forEach((v, i) => {
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(v).toFixed(1));
    dot.setAttribute("r", "3.5");
    dot.setAttribute("class", "rating-dot");
    svg.append(dot);
  });
  return svg;
}
