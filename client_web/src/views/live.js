// Watch: the races running now, with their racers and how far each has got; a race opens in the watch view.
// The list comes from GET /api/races/live (no code, no card: a ranked race's deal stays secret).
import { t } from "../i18n.js";
import { racerName } from "../names.js";
import { TABLEAU, statusText } from "../format.js";
import { el, translate } from "../ui.js";

const REFRESH_MS = 5000;

export function createLiveView(app) {
  const root = el(`
    <section class="view live-view" aria-labelledby="live-title">
      <div class="panel">
        <h1 id="live-title" data-t="ui.live.title"></h1>
        <p class="empty live-empty" data-t="ui.live.empty" hidden></p>
        <p class="field-error live-error" role="alert" hidden></p>
        <ul class="live-list"></ul>
      </div>
    </section>`);
  const q = (s) => root.querySelector(s);
  let timer = null;
  let loads = 0;
  let shown = [];

  function item(race) {
    const li = el(`<li class="live-race" data-race="${race.race}">
      <div class="live-meta"><b class="live-count"></b><span class="live-phase"></span><span class="live-watchers"></span></div>
      <ol class="live-racers"></ol>
      <a class="btn primary live-watch"></a>
    </li>`);
    li.querySelector(".live-count").textContent = t("ui.live.racers", { n: race.racers.length });
    const bits = [t(race.rules === "classic" ? "ui.rules_classic" : "ui.rules_easy"), t(`ui.phase.${race.phase}`)];
    if (race.ranked) bits.push(t("ui.ranked"));
    li.querySelector(".live-phase").textContent = bits.join(" · ");
    li.querySelector(".live-watchers").textContent = `${t("ui.watching")}: ${race.watchers}`;
    const list = li.querySelector(".live-racers");
    for (const r of race.racers) {
      const row = el(`<li class="live-racer"><span class="live-name"></span><span class="bar" aria-hidden="true"><span></span></span><span class="live-progress" dir="ltr"></span></li>`);
      row.dataset.status = r.status;
      row.querySelector(".live-name").textContent = racerName(r);
      row.querySelector(".bar span").style.width = `${(100 * (r.removed ?? 0)) / TABLEAU}%`;
      row.querySelector(".live-progress").textContent = `${r.removed ?? 0}/${TABLEAU}`;
      row.title = `${statusText(r.status)} · ${r.score}`;
      list.append(row);
    }
    const watch = li.querySelector(".live-watch");
    watch.href = `#/watch/${race.race}`;
    watch.textContent = t("ui.live.watch");
    // the link's name says which race: "Watch: 3 racers, Running"
    watch.setAttribute("aria-label", `${t("ui.live.watch")}: ${t("ui.live.racers", { n: race.racers.length })}, ${t(`ui.phase.${race.phase}`)}`);
    return li;
  }

  function paint() {
    q(".live-list").replaceChildren(...shown.map(item));
    q(".live-empty").hidden = shown.length > 0;
  }

  async function load() {
    const n = ++loads;
    let data = null;
    try {
      const res = await fetch("/api/races/live");
      data = res.ok ? await res.json() : null;
    } catch {
      data = null;
    }
    if (n !== loads) return;
    q(".live-error").hidden = Boolean(data);
    q(".live-error").textContent = data ? "" : t("ui.offline");
    if (data) shown = data.races ?? [];
    paint();
    root.dataset.loaded = String(n);
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
      clearInterval(timer);
      loads += 1;
    },
    relabel() {
      translate(root);
      paint();
    },
  };
}
