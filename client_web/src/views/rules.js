// @ts-check
// The rules page in the page's language: HTML rendered at build time from docs/rules-<locale>.md, after the
// example deal drawn as cards (with "Play this deal" and the walkthrough), and the playable-cards aid.
// No reducer: no server message reaches this view (its only input is the page's language and one HTTP fetch
// of the rendered rules), so there is no state to reduce, only the page to paint.
import { Board } from "../ui/board.js";
import { EXAMPLE, exampleState } from "../game/example.js";
import { catalog, locale, t } from "../ui/i18n.js";
import { openWalkthrough } from "../features/learn.js";
import { aid } from "../ui/playable.js";
import { el, translate } from "../ui/ui.js";

/** The rules' section (0-based, counting h2 headings) that walks through the example deal. */
const EXAMPLE_SECTION = 2;

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
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
  /** @param {string} sel */
  const q = (sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
  const body = q(".rules-body");
  const exampleSection = q(".rules-example");
  const cache = new Map();
  const example = new Board({ interactive: false, compact: true });
  example.el.setAttribute("aria-labelledby", "example-title");
  q(".example-table").append(example.el);
  const taps = /** @type {{a: "tap", col: number}[]} */ (EXAMPLE.line.filter((m) => m.a === "tap"));
  const [first, second] = taps;
  const aidBox = /** @type {HTMLInputElement} */ (root.querySelector("input[name=aid]"));
  aidBox.addEventListener("change", () => (aid.on = aidBox.checked));
  // app.playDeal is set once the views exist, before any is mounted (ui/app.js)
  q(".play-example").addEventListener("click", () => /** @type {(code: string) => void} */ (app.playDeal)(EXAMPLE.code));
  q(".replay-walk").addEventListener("click", () => openWalkthrough(app));

  function paintExample() {
    example.render(exampleState(0), "snapshot", null, locale());
    // the example's two removals, marked on the table
    for (const [n, move] of [first, second].entries()) {
      const card = /** @type {HTMLElement} */ (example.columns[move.col - 1].lastElementChild);
      card.dataset.step = String(n + 1);
    }
    const caption = q(".example-caption");
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
    // the deal as a screen reader announces it (a long run of card names) is for screen readers: the drawn
    // example shows it to everyone else; its lead-in sentence goes with it
    const stock = String(catalog(loc).describe.stock.other).split("{n}")[0];
    for (const p of body.querySelectorAll("p")) {
      if (!p.textContent.startsWith(stock) || p.textContent.length < 200) continue;
      p.classList.add("sr-only", "board-words");
      const lead = p.previousElementSibling;
      if (lead?.tagName === "P" && lead.textContent.trim().endsWith(":")) lead.classList.add("sr-only", "board-words");
    }
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
