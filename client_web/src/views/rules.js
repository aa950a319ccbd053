// The rules page in the page's language: HTML rendered at build time from docs/rules-<locale>.md.
import { locale } from "../i18n.js";
import { el, translate } from "../ui.js";

export function createRulesView() {
  const root = el(`
    <section class="view rules-view" aria-labelledby="rules-title">
      <article class="rules-page">
        <h1 id="rules-title" class="sr-only" data-t="ui.nav_rules"></h1>
        <div class="rules-body"></div>
      </article>
    </section>`);
  const body = root.querySelector(".rules-body");
  const cache = new Map();

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
    translate(root);
  }

  return {
    root,
    title: "ui.nav_rules",
    mount() {
      translate(root);
      load();
    },
    unmount() {},
    relabel() {
      load();
    },
  };
}
