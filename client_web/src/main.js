// @ts-check
// The page: header with navigation and language, one view at a time, the connection banner.
import { initialLocale, LOCALES, catalog, locale, onLocaleChange, setLocale, t } from "./ui/i18n.js";
import { Connection } from "./net/net.js";
import { el, hideToast, translate } from "./ui/ui.js";
import { createPlayView } from "./views/play.js";
import { createCourseView } from "./views/course.js";
import { createCourseRaceView } from "./views/courserace.js";
import { createDailyView } from "./views/daily.js";
import { createLeaderboardsView } from "./views/leaderboards.js";
import { createRaceView } from "./views/race.js";
import { createRulesView } from "./views/rules.js";
import { createWatchView } from "./views/watch.js";
import { installDailyEnd } from "./features/dailyend.js";
import { createAccountView } from "./views/account.js";
import { setAccount } from "./features/account.js";
import { createLiveView } from "./views/live.js";
import { createStatsView } from "./views/stats.js";
import { createFriendsView } from "./views/friends.js";
import { installChallenges } from "./features/challenges.js";
import { createAnalysisView } from "./views/analysis.js";
import { createGhostView } from "./views/ghost.js";
import { initLearning } from "./features/learn.js";
import { registerServiceWorker } from "./net/pwa.js";
import { installQuickRace, poolState, repaintBars } from "./features/quickrace.js";

setLocale(initialLocale(), { remember: false });

const conn = new Connection({ lang: locale() });
conn.start(); // first, so the handshake overlaps building the page (handlers are added before it answers)
/** @typedef {import("./ui/app.js").App} App */
/** @typedef {import("./ui/app.js").View} View */
/** @typedef {ReturnType<typeof createPlayView>} PlayView */

/** @type {App["metrics"]} */
const metrics = { boardShownMs: null, diffs: [] };
/** @type {App} */
const app = {
  conn,
  metrics,
  player: () => conn.welcome?.player ?? null,
  navigate(/** @type {string} */ hash) {
    location.hash = hash;
  },
  /** Go to another route in place of this one (Back does not return to a link that redirects again). */
  redirect(/** @type {string} */ hash) {
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
installQuickRace(app); // "Race now": one search per page, shown wherever a bar is

// Views are created on first visit; `match` reads the route (the hash, else the path of /r/<id> and
// /watch/<id> links) and `params` turns the match into what the view's mount() gets.
/**
 * @typedef {object} Route
 * @property {RegExp} match
 * @property {(m: RegExpExecArray) => Record<string, any>} [params]
 * @property {string} [nav]  the catalog path of its navigation entry (none: no entry)
 * @property {string} [href]
 * @property {() => View} make
 */
/** @type {Record<string, Route>} */
const VIEWS = {
  play: { match: /^\/?$/, nav: "ui.nav_play", href: "#/", make: () => createPlayView(app) },
  race: { match: /^\/race(?:\/([\w-]+))?$/, params: (m) => ({ id: m[1] }), nav: "ui.nav_race", href: "#/race", make: () => createRaceView(app) },
  daily: { match: /^\/daily$/, nav: "ui.nav_daily", href: "#/daily", make: () => createDailyView(app) },
  live: { match: /^\/watch\/?$/, nav: "ui.live.nav", href: "#/watch", make: () => createLiveView(app) },
  courserace: { match: /^\/course\/race(?:\/([\w-]+))?$/, params: (m) => ({ id: m[1] }), make: () => createCourseRaceView(app) },
  course: { match: /^\/course(?:\/(daily))?$/, params: (m) => ({ daily: m[1] === "daily" }), nav: "ui.course.nav", href: "#/course", make: () => createCourseView(app) },
  leaderboards: {
    match: /^\/leaderboards(?:\/(daily|code|course|course-day)\/(.*))?$/,
    params: (m) => ({ kind: m[1], key: m[2] }),
    nav: "ui.nav_leaderboards",
    href: "#/leaderboards",
    make: () => createLeaderboardsView(app),
  },
  stats: { match: /^\/stats$/, nav: "ui.stats.nav", href: "#/stats", make: () => createStatsView(app) },
  friends: { match: /^\/friends$/, nav: "ui.friends.nav", href: "#/friends", make: () => createFriendsView(app) },
  rules: { match: /^\/rules$/, nav: "ui.nav_rules", href: "#/rules", make: () => createRulesView(app) },
  watch: { match: /^\/watch\/([\w-]+)$/, params: (m) => ({ id: m[1] }), make: () => createWatchView(app) },
  analysis: { match: /^\/analysis\/([\w-]+)$/, params: (m) => ({ id: m[1] }), make: () => createAnalysisView(app) },
  ghost: { match: /^\/ghost\/([\w-]+)$/, params: (m) => ({ id: m[1] }), make: () => createGhostView(app) },
  account: { match: /^\/account$/, nav: "account.nav", href: "#/account", make: () => createAccountView(app) },
};

/** The route: the hash when there is one, else the page's path (/r/<id> is a race, /watch/<id> a watch). */
export function currentRoute(loc = location) {
  if (loc.hash) return loc.hash.replace(/^#/, "") || "/";
  const race = /^\/r\/([\w-]+)\/?$/.exec(loc.pathname);
  if (race) return `/race/${race[1]}`;
  const watch = /^\/watch\/([\w-]+)\/?$/.exec(loc.pathname);
  if (watch) return `/watch/${watch[1]}`;
  if (/^\/daily\/?$/.test(loc.pathname)) return "/daily"; // the daily's own link (its own preview)
  return "/";
}

const shell = el(`
  <div class="shell">
    <a class="skip-link" href="#main" data-t="ui.skip_to_board"></a>
    <header class="topbar">
      <a class="brand" href="#/" data-t-aria="ui.app_title"><svg viewBox="0 0 32 32" aria-hidden="true"><use href="#logo"/></svg><span data-t="ui.app_title"></span></a>
      <nav class="nav" data-t-aria="ui.nav_label"><div class="nav-more" id="nav-more"></div></nav>
      <label class="lang">
        <span class="sr-only" data-t="ui.language"></span>
        <svg viewBox="0 0 24 24" aria-hidden="true"><use href="#icon-globe"/></svg>
        <select class="lang-select"></select>
      </label>
      <button type="button" class="icon-btn menu-btn" aria-expanded="false" aria-controls="nav-more" data-t-aria="ui.menu">
        <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 6h16M4 12h16M4 18h16" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/></svg>
      </button>
    </header>
    <div class="banner" role="status" hidden></div>
    <main class="main" id="main"></main>
  </div>`);

const nav = /** @type {HTMLElement} */ (shell.querySelector(".nav"));
const more = /** @type {HTMLElement} */ (shell.querySelector(".nav-more"));
/** On a phone the header is one row: these views, and a menu for the others (on a wide screen, all in a row). */
const PRIMARY = new Set(["play", "race", "daily"]);
for (const [name, view] of Object.entries(VIEWS)) {
  if (!view.nav) continue;
  const a = document.createElement("a");
  a.href = view.href ?? "";
  a.dataset.view = name;
  a.dataset.t = view.nav;
  if (PRIMARY.has(name)) {
    a.dataset.primary = "";
    more.before(a);
  } else more.append(a);
}
const topbar = /** @type {HTMLElement} */ (shell.querySelector(".topbar"));
// the skip link: past the header's links, to the shown board's first free card (else the view itself)
/** @type {HTMLElement} */ (shell.querySelector(".skip-link")).addEventListener("click", (e) => {
  e.preventDefault(); // the hash is the route
  const target = /** @type {HTMLElement | null} */ (
    main.querySelector(".board .tableau .card.free") ?? main.querySelector(".board .stock:not([tabindex='-1'])")
  );
  if (target) target.focus();
  else {
    main.tabIndex = -1;
    main.focus();
  }
});
const menuButton = /** @type {HTMLButtonElement} */ (shell.querySelector(".menu-btn"));
/** The phone's menu: open or closed (closed again by a route, Escape or a tap elsewhere). */
function setMenu(/** @type {boolean} */ open, { focus = false } = {}) {
  topbar.toggleAttribute("data-menu-open", open);
  menuButton.setAttribute("aria-expanded", String(open));
  if (open && focus) /** @type {HTMLElement | null} */ (more.querySelector("a"))?.focus();
}
menuButton.addEventListener("click", () => setMenu(menuButton.getAttribute("aria-expanded") !== "true", { focus: true }));
more.addEventListener("click", (e) => {
  if (/** @type {Element} */ (e.target).closest("a")) setMenu(false);
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && topbar.hasAttribute("data-menu-open")) {
    setMenu(false);
    menuButton.focus();
  }
});
document.addEventListener("pointerdown", (e) => {
  if (topbar.hasAttribute("data-menu-open") && !topbar.contains(/** @type {Node} */ (e.target))) setMenu(false);
});
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
const main = /** @type {HTMLElement} */ (shell.querySelector(".main"));
document.body.prepend(shell);

/** Mark the navigation entry of `name` as the current page (a view may pick another: the daily game is
 * played in the race view).
 * @param {string} name
 */
function highlight(name) {
  for (const a of nav.querySelectorAll("a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  menuButton.toggleAttribute("data-current", Boolean(more.querySelector("[aria-current]"))); // the page is in it
}
app.highlight = highlight;

/** @type {string | null} */
let titleKey = null;
/** The tab's title: the view's name (`key`, a catalog path) and the app's, in the page's language. A view may
 * retitle itself (the daily challenge is played in the race view).
 * @param {string} key
 */
function retitle(key) {
  titleKey = key;
  document.title = `${t(key)} · ${t("ui.app_title")}`;
}
app.retitle = retitle;

/** @type {Map<string, View>} */
const instances = new Map();
/** @type {string | null} */
let currentName = null;

/** @type {string | null} */
let currentKey = null;

/** The Play view, once made (it is the first one a page usually shows). */
const playView = () => /** @type {PlayView | undefined} */ (instances.get("play"));

function route() {
  const path = currentRoute();
  let name = "play";
  /** @type {Record<string, any>} */
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
  if (currentName !== null) instances.get(currentName)?.unmount();
  closeDialogs(); // a dialog belongs to the view that opened it: its buttons would act on a view gone
  setMenu(false);
  if (!instances.has(name)) instances.set(name, VIEWS[name].make());
  const view = /** @type {View} */ (instances.get(name));
  main.replaceChildren(view.root);
  currentName = name;
  view.mount(params);
  highlight(name);
  retitle(view.title);
}

/** Close every open dialog (an end dialog, a question, the walkthrough): each cleans up on its close event. */
function closeDialogs() {
  for (const d of /** @type {NodeListOf<HTMLDialogElement>} */ (document.querySelectorAll("dialog[open]"))) d.close();
}

function relabel() {
  translate(shell);
  select.value = locale();
  for (const view of instances.values()) view.relabel();
  challenges.relabel();
  if (titleKey) retitle(titleKey);
  if (!banner.hidden) banner.textContent = t("ui.reconnecting");
}

onLocaleChange(() => {
  conn.lang = locale();
  relabel();
  repaintBars();
});

conn.on("down", () => {
  banner.textContent = t("ui.reconnecting");
  banner.hidden = false;
});
conn.on("ready", ({ welcome }) => {
  banner.hidden = true;
  setAccount(welcome.account ?? null);
  if (currentName === "play") playView()?.start(welcome);
});
const challenges = installChallenges(app); // a friend's challenge in whichever view is shown

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
app.playDeal = (/** @type {string} */ code) => {
  if (currentName !== "play") {
    location.hash = "#/";
    route();
  }
  playView()?.dealAndFocus(code);
};
initLearning(app, { playState: () => playView()?.state ?? null, route: () => currentRoute() });
registerServiceWorker();

// For tests and the speed report: the shown state and timings, read-only.
/** @type {any} */ (window).golfrace = {
  metrics,
  get state() {
    return playView()?.state ?? null;
  },
  get pool() {
    return poolState();
  },
  conn,
};
