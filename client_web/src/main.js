// @ts-check
// The page: header with navigation and language, one view at a time, the connection banner.
import { initialLocale, LOCALES, catalog, locale, onLocaleChange, setLocale, t } from "./i18n.js";
import { Connection } from "./net.js";
import { el, hideToast, translate } from "./ui.js";
import { createPlayView } from "./views/play.js";
import { createDailyView } from "./views/daily.js";
import { createLeaderboardsView } from "./views/leaderboards.js";
import { createRaceView } from "./views/race.js";
import { createRulesView } from "./views/rules.js";
import { createWatchView } from "./views/watch.js";
import { installDailyEnd } from "./dailyend.js";
import { createAccountView } from "./views/account.js";
import { setAccount } from "./account.js";
import { createLiveView } from "./views/live.js";
import { createStatsView } from "./views/stats.js";
import { initLearning } from "./learn.js";
import { registerServiceWorker } from "./pwa.js";

setLocale(initialLocale(), { remember: false });

const conn = new Connection({ lang: locale() });
conn.start(); // first, so the handshake overlaps building the page (handlers are added before it answers)
const metrics = { boardShownMs: null, diffs: [] };
const app = {
  conn,
  metrics,
  player: () => conn.welcome?.player ?? null,
  navigate(hash) {
    location.hash = hash;
  },
  /** Go to another route in place of this one (Back does not return to a link that redirects again). */
  redirect(hash) {
    location.replace(hash);
  },
  /** Open the websocket again (after signing in or out: the handshake carries the new session cookie). */
  reconnect() {
    conn.reconnectNow();
  },
  /** Drop this browser's player token (after deleting the account): the next hello makes a new guest. */
  forgetPlayer() {
    conn.storage?.removeItem("golfrace.token");
    conn.memoryToken = null;
  },
  boardShown() {
    if (metrics.boardShownMs === null) {
      metrics.boardShownMs = performance.now();
      performance.mark("golfrace:board-shown");
      document.documentElement.dataset.boardShown = "1";
    }
  },
};

installDailyEnd(app); // the daily's result dialog, whichever view shows the attempt

// Views are created on first visit; `match` reads the route (the hash, else the path of /r/<id> and
// /watch/<id> links) and `params` turns the match into what the view's mount() gets.
const VIEWS = {
  play: { match: /^\/?$/, nav: "ui.nav_play", href: "#/", make: () => createPlayView(app) },
  race: { match: /^\/race(?:\/([\w-]+))?$/, params: (m) => ({ id: m[1] }), nav: "ui.nav_race", href: "#/race", make: () => createRaceView(app) },
  live: { match: /^\/watch\/?$/, nav: "ui.live.nav", href: "#/watch", make: () => createLiveView(app) },
  daily: { match: /^\/daily$/, nav: "ui.nav_daily", href: "#/daily", make: () => createDailyView(app) },
  leaderboards: {
    match: /^\/leaderboards(?:\/(daily|code)\/(.*))?$/,
    params: (m) => ({ kind: m[1], key: m[2] }),
    nav: "ui.nav_leaderboards",
    href: "#/leaderboards",
    make: () => createLeaderboardsView(app),
  },
  stats: { match: /^\/stats$/, nav: "ui.stats.nav", href: "#/stats", make: () => createStatsView(app) },
  rules: { match: /^\/rules$/, nav: "ui.nav_rules", href: "#/rules", make: () => createRulesView(app) },
  watch: { match: /^\/watch\/([\w-]+)$/, params: (m) => ({ id: m[1] }), make: () => createWatchView(app) },
  account: { match: /^\/account$/, nav: "account.nav", href: "#/account", make: () => createAccountView(app) },
};

/** The route: the hash when there is one, else the page's path (/r/<id> is a race, /watch/<id> a watch). */
export function currentRoute(loc = location) {
  if (loc.hash) return loc.hash.replace(/^#/, "") || "/";
  const race = /^\/r\/([\w-]+)\/?$/.exec(loc.pathname);
  if (race) return `/race/${race[1]}`;
  const watch = /^\/watch\/([\w-]+)\/?$/.exec(loc.pathname);
  if (watch) return `/watch/${watch[1]}`;
  return "/";
}

const shell = el(`
  <div class="shell">
    <header class="topbar">
      <a class="brand" href="#/" data-t-aria="ui.app_title"><svg viewBox="0 0 32 32" aria-hidden="true"><use href="#logo"/></svg><span data-t="ui.app_title"></span></a>
      <nav class="nav" data-t-aria="ui.nav_label"></nav>
      <label class="lang">
        <span class="sr-only" data-t="ui.language"></span>
        <svg viewBox="0 0 24 24" aria-hidden="true"><use href="#icon-globe"/></svg>
        <select class="lang-select"></select>
      </label>
    </header>
    <div class="banner" role="status" hidden></div>
    <main class="main" id="main"></main>
  </div>`);

const nav = shell.querySelector(".nav");
for (const [name, view] of Object.entries(VIEWS)) {
  if (!view.nav) continue;
  const a = document.createElement("a");
  a.href = view.href;
  a.dataset.view = name;
  a.dataset.t = view.nav;
  nav.append(a);
}
const select = /** @type {HTMLSelectElement} */ (shell.querySelector(".lang-select"));
for (const loc of LOCALES) {
  const opt = document.createElement("option");
  opt.value = loc;
  opt.textContent = catalog(loc).name;
  opt.lang = loc;
  select.append(opt);
}
select.value = locale();
select.addEventListener("change", () => setLocale(select.value));

const banner = /** @type {HTMLElement} */ (shell.querySelector(".banner"));
const main = shell.querySelector(".main");
document.body.prepend(shell);

/** Mark the navigation entry of `name` as the current page (a view may pick another: the daily game is
 * played in the race view). */
function highlight(name) {
  for (const a of nav.querySelectorAll("a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}
app.highlight = highlight;

let titleKey = null;
/** The tab's title: the view's name (`key`, a catalog path) and the app's, in the page's language. A view may
 * retitle itself (the daily challenge is played in the race view). */
function retitle(key) {
  titleKey = key;
  document.title = `${t(key)} · ${t("ui.app_title")}`;
}
app.retitle = retitle;

const instances = new Map();
let currentName = null;

let currentKey = null;

function route() {
  const path = currentRoute();
  let name = "play";
  let params = {};
  for (const [key, view] of Object.entries(VIEWS)) {
    const m = view.match.exec(path);
    if (m) {
      name = key;
      params = view.params ? view.params(m) : {};
      break;
    }
  }
  const routeKey = `${name}:${JSON.stringify(params)}`;
  if (routeKey === currentKey) return;
  currentKey = routeKey;
  hideToast(); // a toast speaks of the view it came from (a refusal, an error): not of the next one
  instances.get(currentName)?.unmount();
  if (!instances.has(name)) instances.set(name, VIEWS[name].make());
  const view = instances.get(name);
  main.replaceChildren(view.root);
  currentName = name;
  view.mount(params);
  highlight(name);
  retitle(view.title);
}

function relabel() {
  translate(shell);
  select.value = locale();
  for (const view of instances.values()) view.relabel();
  if (titleKey) retitle(titleKey);
  if (!banner.hidden) banner.textContent = t("ui.reconnecting");
}

onLocaleChange(() => {
  conn.lang = locale();
  relabel();
});

conn.on("down", () => {
  banner.textContent = t("ui.reconnecting");
  banner.hidden = false;
});
conn.on("ready", ({ welcome }) => {
  banner.hidden = true;
  setAccount(welcome.account ?? null);
  if (currentName === "play") instances.get("play").start(welcome);
});

/** A shared /r/<id> or /watch/<id> link becomes the page's own address (/#/race/<id>), so that the hash
 * links and navigate() that follow never mix two paths (/r/<old>#/race/<new>). */
function canonicalAddress() {
  const path = currentRoute();
  if (location.pathname !== "/" && !location.hash && path !== "/") {
    history.replaceState(history.state, "", `/${location.search}#${path}`);
  }
}

translate(shell);
canonicalAddress();
window.addEventListener("hashchange", route);
route();

/** Deal `code` in the Play view (the rules' example, the walkthrough's "Play this deal"). */
app.playDeal = (code) => {
  if (currentName !== "play") {
    location.hash = "#/";
    route();
  }
  instances.get("play").session.newGame({ code }).catch(() => {});
};
initLearning(app, { playState: () => instances.get("play")?.state ?? null, route: () => currentRoute() });
registerServiceWorker();

// For tests and the speed report: the shown state and timings, read-only.
/** @type {any} */ (window).golfrace = {
  metrics,
  get state() {
    return instances.get("play")?.state ?? null;
  },
  conn,
};
