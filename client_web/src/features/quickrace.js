// @ts-check
// "Race now": a quick race with whoever is online (the server's pool), or bots when nobody is. One search
// per page (installQuickRace), shown by any number of bars (quickRaceBar): the home page, after a game, the
// race results. Searching pulses the button and shows the pool's size; Cancel leaves the pool at once; a
// race found opens the race view, which counts down. A closed tab leaves the pool by itself (the server
// sees the connection go).
import { t } from "../ui/i18n.js";
import { el, translate } from "../ui/ui.js";
import { RULE } from "../net/messages.js";

/** @typedef {{state: "idle" | "searching" | "found", rules: string | null, n: number}} PoolState */

/** @type {PoolState} */
let pool = { state: "idle", rules: null, n: 0 };
/** @type {Set<HTMLElement>} */
const bars = new Set();
/** @type {import("../ui/app.js").App | null} */
let page = null;

/** Listen to the pool's messages (once, from main.js). */
export function installQuickRace(/** @type {import("../ui/app.js").App} */ app) {
  page = app;
  app.conn.on("pool", (m) => {
    if (pool.state === "found") return;
    set({ state: m.state === "searching" ? "searching" : "idle", rules: m.rules ?? null, n: m.n ?? 0 });
  });
  app.conn.on("pool_found", (m) => {
    set({ state: "found", rules: m.rules, n: pool.n });
    // an end-of-game dialog that asked for the race gives way to it
    for (const d of document.querySelectorAll("dialog[open]")) /** @type {HTMLDialogElement} */ (d).close();
    app.navigate(`#/race/${m.race}`);
    setTimeout(() => set({ state: "idle", rules: null, n: 0 }), 1500); // the race view has taken over
  });
  app.conn.on("error", (m) => {
    if (m.ref === "pool_join" || m.code === "rate_limited") {
      if (pool.state === "searching") set({ state: "idle", rules: null, n: 0 });
    }
  });
  // a reconnect is a new connection: the server took the old one out of the pool, so search again
  app.conn.on("ready", (e) => {
    if (e?.reconnect && pool.state === "searching" && pool.rules) app.conn.send({ t: "pool_join", rules: pool.rules });
  });
}

/** Search for a quick race of `rules` (one of RULES). */
export function raceNow(/** @type {string} */ rules) {
  if (!page) return;
  set({ state: "searching", rules, n: pool.n });
  page.conn.sendSoon({ t: "pool_join", rules });
}

export function cancelSearch() {
  if (!page) return;
  set({ state: "idle", rules: null, n: 0 });
  page.conn.sendSoon({ t: "pool_leave" });
}

/** The current search (for tests and views). */
export function poolState() {
  return pool;
}

function set(/** @type {PoolState} */ next) {
  pool = next;
  for (const bar of [...bars]) {
    if (!bar.isConnected) bars.delete(bar);
    else paint(bar);
  }
}

/**
 * A "Race now" bar: a title, Easy and Classic, and while searching the pool's size and Cancel.
 * @param {{compact?: boolean, again?: string | null}} [options]  `again`: one "Race again" button for
 *   these rules instead of the two (after a quick race)
 */
export function quickRaceBar({ compact = false, again = null } = {}) {
  const bar = el(`
    <div class="quick-race${compact ? " compact" : ""}" data-testid="quick-race">
      <div class="qr-text">
        <h2 class="qr-title" data-t="pool.title"></h2>
        <p class="qr-lead" data-t="pool.lead"></p>
      </div>
      <div class="qr-buttons">
        <button type="button" class="btn primary qr-go" data-rules="${RULE.EASY}"><span class="qr-label" data-t="pool.easy"></span></button>
        <button type="button" class="btn primary qr-go" data-rules="${RULE.CLASSIC}"><span class="qr-label" data-t="pool.classic"></span></button>
        <button type="button" class="btn primary qr-again" hidden><span data-t="pool.again"></span></button>
      </div>
      <div class="qr-status" role="status" aria-live="polite" hidden>
        <span class="qr-dot" aria-hidden="true"></span>
        <span class="qr-searching" data-t="pool.searching"></span>
        <span class="qr-count" dir="auto"></span>
        <button type="button" class="btn small qr-cancel" data-t="pool.cancel"></button>
      </div>
    </div>`);
  translate(bar);
  bar.dataset.again = again ?? "";
  for (const b of bar.querySelectorAll(".qr-go")) {
    b.addEventListener("click", () => raceNow(/** @type {HTMLElement} */ (b).dataset.rules ?? RULE.EASY));
  }
  bar.querySelector(".qr-again")?.addEventListener("click", () => raceNow(again ?? RULE.EASY));
  bar.querySelector(".qr-cancel")?.addEventListener("click", () => cancelSearch());
  bars.add(bar);
  paint(bar);
  return bar;
}

/** Paint the bar again (state, language). */
export function paint(/** @type {HTMLElement} */ bar) {
  translate(bar);
  const again = bar.dataset.again || null;
  const searching = pool.state !== "idle";
  bar.classList.toggle("searching", searching);
  for (const b of bar.querySelectorAll(".qr-go")) {
    const button = /** @type {HTMLButtonElement} */ (b);
    button.hidden = Boolean(again);
    const mine = searching && button.dataset.rules === pool.rules;
    button.classList.toggle("pulsing", mine);
    button.disabled = searching && !mine;
    button.setAttribute("aria-pressed", String(mine));
  }
  const againBtn = /** @type {HTMLButtonElement} */ (bar.querySelector(".qr-again"));
  againBtn.hidden = !again;
  againBtn.classList.toggle("pulsing", searching && pool.rules === again);
  /** @type {HTMLElement} */ (bar.querySelector(".qr-status")).hidden = !searching;
  const count = /** @type {HTMLElement} */ (bar.querySelector(".qr-count"));
  count.textContent = pool.state === "found" ? t("pool.found") : t("pool.in_pool", { n: Math.max(1, pool.n) });
  /** @type {HTMLElement} */ (bar.querySelector(".qr-cancel")).hidden = pool.state === "found";
}

/** Paint every bar again (after a language change). */
export function repaintBars() {
  for (const bar of bars) paint(bar);
}
