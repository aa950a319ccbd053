// @ts-check
// Watch: the races running now, with their racers and how far each has got; a race opens in the watch view.
// The list comes from GET /api/races/live (no code, no card: a ranked race's deal stays secret). Its state and
// changes are live_state.js; this module fetches, keeps the timer and paints.
import { t } from "../ui/i18n.js";
import { racerName } from "../ui/names.js";
import { TABLEAU, statusText } from "../ui/format.js";
import { el, isolated, translate } from "../ui/ui.js";
import { initial, reduce } from "./live_state.js";
import { RULE } from "../net/messages.js";
import { loop } from "../ui/loop.js";

/**
 * @typedef {import("./live_state.js").LiveState} LiveState
 * @typedef {import("./live_state.js").LiveRace} LiveRace
 * @typedef {import("./live_state.js").Msg} Msg
 * @typedef {import("../ui/app.js").App} App
 */

const REFRESH_MS = 5000;

/** @param {App} _app @returns {import("../ui/app.js").View} */
export function createLiveView(_app) {
  const root = el(`
    <section class="view live-view" aria-labelledby="live-title">
      <div class="panel">
        <h1 id="live-title" data-t="ui.live.title"></h1>
        <p class="empty live-empty" data-t="ui.live.empty" hidden></p>
        <p class="field-error live-error" role="alert" hidden></p>
        <ul class="live-list"></ul>
      </div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  /** The one loop: a load's answer is painted (a load started or stopped changes only which answer counts). */
  /** @type {import("../ui/loop.js").Loop<LiveState, Msg>} */
  const view = loop({
    initial: initial(),
    reduce,
    render: (_after, _before, msg) => msg.t === "live/answer" && render(),
  });
  const update = view.update;

  function item(/** @type {LiveRace} */ race) {
    const li = el(`<li class="live-race" data-race="${race.race ?? ""}">
      <div class="live-meta"><b class="live-count"></b><span class="live-phase"></span><span class="live-watchers"></span></div>
      <ol class="live-racers"></ol>
      <a class="btn primary live-watch"></a>
    </li>`);
    const part = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (li.querySelector(sel));
    part(".live-count").textContent = t("ui.live.racers", { n: race.racers.length });
    const bits = [t(race.rules === RULE.CLASSIC ? "ui.rules_classic" : "ui.rules_easy"), t(`ui.phase.${race.phase}`)];
    if (race.ranked) bits.push(t("ui.ranked"));
    part(".live-phase").textContent = bits.join(" · ");
    part(".live-watchers").textContent = `${t("ui.watching")}: ${race.watchers}`;
    const list = part(".live-racers");
    for (const r of race.racers) {
      const row = el(`<li class="live-racer"><span class="live-name"></span><span class="bar" aria-hidden="true"><span></span></span><span class="live-progress" dir="ltr"></span></li>`);
      row.dataset.status = r.status;
      const cell = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (row.querySelector(sel));
      cell(".live-name").replaceChildren(isolated(racerName(r))); // its own direction, the column's side
      cell(".bar span").style.width = `${(100 * (r.removed ?? 0)) / TABLEAU}%`;
      cell(".live-progress").textContent = `${r.removed ?? 0}/${TABLEAU}`;
      row.title = `${statusText(r.status)} · ${r.score}`;
      list.append(row);
    }
    const watch = /** @type {HTMLAnchorElement} */ (part(".live-watch"));
    if (race.race == null) {
      watch.remove(); // a lobby about to start: listed, but watched only once it has started
      return li;
    }
    watch.href = `#/watch/${race.race}`;
    watch.textContent = t("ui.live.watch");
    // the link's name says which race: "Watch: 3 racers, Running"
    watch.setAttribute("aria-label", `${t("ui.live.watch")}: ${t("ui.live.racers", { n: race.racers.length })}, ${t(`ui.phase.${race.phase}`)}`);
    return li;
  }

  function paint() {
    const state = view.state();
    q(".live-list").replaceChildren(...state.races.map(item));
    q(".live-empty").hidden = state.races.length > 0;
  }

  function render() {
    const state = view.state();
    q(".live-error").hidden = !state.failed;
    q(".live-error").textContent = state.failed ? t("ui.offline") : "";
    paint();
    root.dataset.loaded = String(state.loaded);
  }

  async function load() {
    update({ t: "live/load" });
    const n = view.state().loads;
    let data = null;
    try {
      const res = await fetch("/api/races/live");
      data = res.ok ? await res.json() : null;
    } catch {
      data = null;
    }
    update({ t: "live/answer", n, data });
  }

  return {
    root,
    title: "ui.live.title",
    mount() {
      translate(root);
      load();
      timer = setInterval(load, REFRESH_MS);
    },
    unmount() {
      clearInterval(timer ?? undefined);
      update({ t: "live/stop" }); // an answer still on its way is not shown
    },
    relabel() {
      translate(root);
      paint();
    },
  };
}
