// @ts-check
// The rules page in the page's language: HTML rendered at build time from docs/rules-<locale>.md, after the
// example deal drawn as cards (with "Play this deal" and the walkthrough), and the playable-cards aid.
// No reducer: no server message reaches this view (its only input is the page's language and one HTTP fetch
// of the rendered rules), so there is no state to reduce, only the page to paint.
import { Board } from "../board.js";
import { EXAMPLE, exampleState } from "../example.js";
import { locale, t } from "../i18n.js";
import { openWalkthrough } from "../learn.js";
import { aid } from "../playable.js";
import { el, translate } from "../ui.js";

/** The rules' section (0-based, counting h2 headings) that walks through the example deal. */
const EXAMPLE_SECTION = 2;

/** @param {import("./app.js").App} app @returns {import("./app.js").View} */
export function createRulesView(app) {
  const root = el(`
    <section class="view rules-view" aria-labelledby="rules-title">
      <article class="rules-page">
        <h1 id="rules-title" class="sr-only" data-t="ui.nav_rules"></h1>
        <div class="rules-body"></div>
        <section class="rules-example" aria-labelledby="example-title">
          <h2 id="example-title" data-t="ui.learn.example_title"></h2>
          <p class="example-caption"></p>
          <div class="example-table"></div>
          <div class="example-actions">
            <button type="button" class="btn primary play-example" data-t="ui.learn.play_deal"></button>
            <button type="button" class="btn replay-walk" data-t="ui.learn.replay"></button>
          </div>
          <label class="switch aid-switch"><input type="checkbox" name="aid"><span><b data-t="ui.learn.show_playable"></b><small data-t="ui.learn.show_playable_help"></small></span></label>
        </section>
      </article>
    </section>`);
  const body = root.querySelector(".rules-body");
  const exampleSection = root.querySelector(".rules-example");
  const cache = new Map();
  const example = new Board({ interactive: false, compact: true });
  example.el.setAttribute("aria-labelledby", "example-title");
  root.querySelector(".example-table").append(example.el);
  const [first, second] = EXAMPLE.line.filter((m) => m.a === "tap");
  const aidBox = /** @type {HTMLInputElement} */ (root.querySelector("input[name=aid]"));
  aidBox.addEventListener("change", () => (aid.on = aidBox.checked));
  root.querySelector(".play-example").addEventListener("click", () => app.playDeal(EXAMPLE.code));
  root.querySelector(".replay-walk").addEventListener("click", () => openWalkthrough(app));

  function paintExample() {
    example.render(exampleState(0), "snapshot", null, locale());
    // the example's two removals, marked on the table
    for (const [n, move] of [first, second].entries()) {
      const card = /** @type {HTMLElement} */ (example.columns[move.col - 1].lastElementChild);
      card.dataset.step = String(n + 1);
    }
    const caption = root.querySelector(".example-caption");
    caption.replaceChildren();
    const [before, after] = t("ui.learn.example_caption").split("{code}");
    const code = document.createElement("bdi");
    code.dir = "ltr";
    code.textContent = EXAMPLE.code;
    caption.append(before ?? "", code, after ?? "");
    aidBox.checked = aid.on;
  }

  async function load() {
    const loc = locale();
    if (!cache.has(loc)) {
      cache.set(
        loc,
        fetch(`/rules/${loc}.html`)
          .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
          .catch(() => null),
      );
    }
    const html = await cache.get(loc);
    if (loc !== locale()) return;
    if (html) body.innerHTML = html;
    else body.innerHTML = `<p data-t="ui.rules_missing"></p>`;
    translate(body);
    // the example, drawn, right after the rules' own words about it (the end of "Moving a card")
    const after = body.querySelectorAll("h2")[EXAMPLE_SECTION + 1];
    if (after) after.before(exampleSection);
    else body.append(exampleSection);
    root.dataset.loaded = loc;
  }

  return {
    root,
    title: "ui.nav_rules",
    mount() {
      translate(root);
      paintExample();
      load();
    },
    unmount() {},
    relabel() {
      translate(root);
      paintExample();
      load();
    },
  };
}
