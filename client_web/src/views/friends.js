// @ts-check
// Friends: follow an account by username, the accounts followed with who is online and in which race (a
// watch link once a race has started: the watch view shows no code and no card of a ranked deal), challenge,
// unfollow, block; the blocked list; and today's daily board of the accounts followed. Accounts only: a
// guest sees how to sign in. The list is asked for again every 10 s while the view is open.
import { account, onAccountChange } from "../features/account.js";
import { errorText, t } from "../ui/i18n.js";
import { createFriendsBoard } from "../features/friendsboard.js";
import { safeStorage } from "../net/storage.js";
import { el, isolated, translate } from "../ui/ui.js";
import { RULE } from "../net/messages.js";

/**
 * @typedef {import("../net/messages.js").WireFriend} Friend
 * @typedef {import("../net/messages.js").WirePerson} Person
 * @typedef {import("../features/friendsboard.js").DailyRow} DailyRow
 * @typedef {import("../ui/app.js").App} App
 */

const REFRESH_MS = 10_000;
const RULES_KEY = "golfrace.challenge_rules";
/** The requests of this view, by their `ref` in an `error`. @type {Set<string | number | undefined>} */
const REFS = new Set(["friends", "friend_follow", "friend_unfollow", "friend_block", "friend_unblock", "friends_daily"]);

/** @param {App} app @returns {import("../ui/app.js").View} */
export function createFriendsView(app) {
  const root = el(`
    <section class="view friends-view" aria-labelledby="friends-title">
      <div class="panel friends-panel">
        <h1 id="friends-title" data-t="ui.friends.title"></h1>
        <div class="friends-signin" hidden>
          <p data-t="ui.friends.sign_in"></p>
          <a class="btn primary" href="#/account" data-t="ui.friends.sign_in_link"></a>
        </div>
        <div class="friends-body" hidden>
          <form class="friends-add" novalidate>
            <label for="friend-name" data-t="ui.friends.add_label"></label>
            <div class="friends-add-row">
              <input id="friend-name" name="name" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" data-bound="username_max" dir="ltr" data-t-ph="ui.friends.add_placeholder">
              <button class="btn primary friends-add-btn" type="submit" data-t="ui.friends.add"></button>
            </div>
            <p class="field-error friends-error" role="alert" hidden></p>
          </form>
          <label class="friends-rules"><span data-t="ui.friends.rules_label"></span>
            <select class="friends-rules-select"><option value="${RULE.EASY}" data-t="ui.rules_easy"></option><option value="${RULE.CLASSIC}" data-t="ui.rules_classic"></option></select>
          </label>
          <h2 data-t="ui.friends.following"></h2>
          <p class="empty friends-empty" data-t="ui.friends.empty" hidden></p>
          <ul class="friends-list"></ul>
          <div class="friends-board-slot"></div>
          <h2 data-t="ui.friends.blocked"></h2>
          <p class="help" data-t="ui.friends.blocked_help"></p>
          <ul class="friends-blocked"></ul>
        </div>
      </div>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  const input = /** @type {HTMLInputElement} */ (q("#friend-name"));
  const rules = /** @type {HTMLSelectElement} */ (q(".friends-rules-select"));
  rules.value = safeStorage()?.getItem(RULES_KEY) === RULE.CLASSIC ? RULE.CLASSIC : RULE.EASY;
  rules.addEventListener("change", () => safeStorage()?.setItem(RULES_KEY, rules.value));
  /** @type {Friend[]} */
  let following = [];
  /** @type {Person[]} */
  let blocked = [];
  const board = createFriendsBoard();
  q(".friends-board-slot").replaceWith(board.root);
  /** @type {DailyRow[] | null} */
  let daily = null;
  let loaded = false;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  /** @type {(() => void)[]} */
  let offs = [];

  function showError(/** @type {{code: string, params?: any} | null} */ err) {
    const box = q(".friends-error");
    box.hidden = !err;
    box.textContent = err ? errorText(err.code, err.params ?? {}) : "";
  }

  function ask() {
    if (!account()) return;
    app.conn.send({ t: "friends" });
    app.conn.send({ t: "friends_daily" });
  }

  function who(/** @type {Person} */ p) {
    const box = el(`<div class="friend-who"><b class="friend-name"></b> <span class="friend-username"></span></div>`);
    /** @type {HTMLElement} */ (box.querySelector(".friend-name")).append(isolated(p.name || p.username));
    // the username too when the shown name is another (a display name): it is what one follows by
    if ((p.name || p.username) !== p.username) /** @type {HTMLElement} */ (box.querySelector(".friend-username")).append(isolated(`@${p.username}`, "ltr"));
    return box;
  }

  function item(/** @type {Friend} */ f) {
    const li = el(`<li class="friend"><span class="friend-status"><span class="dot" aria-hidden="true"></span><span class="friend-status-text"></span></span><div class="friend-actions"></div></li>`);
    li.dataset.username = f.username;
    li.dataset.status = f.status;
    li.prepend(who(f));
    /** @type {HTMLElement} */ (li.querySelector(".friend-status-text")).textContent = t(`ui.friends.status.${f.status}`);
    const actions = /** @type {HTMLElement} */ (li.querySelector(".friend-actions"));
    const label = (/** @type {string} */ key) => `${t(key)}: ${f.name || f.username}`;
    if (f.race) {
      const watch = /** @type {HTMLAnchorElement} */ (el(`<a class="btn friend-watch"></a>`));
      watch.href = `#/watch/${f.race.race}`;
      watch.textContent = t("ui.friends.watch");
      watch.setAttribute("aria-label", label("ui.friends.watch"));
      actions.append(watch);
    }
    const button = (/** @type {string} */ cls, /** @type {string} */ key, /** @type {() => void} */ fn, primary = false) => {
      const b = /** @type {HTMLButtonElement} */ (el(`<button type="button" class="btn ${primary ? "primary " : ""}${cls}"></button>`));
      b.textContent = t(key);
      b.setAttribute("aria-label", label(key));
      b.addEventListener("click", fn);
      actions.append(b);
      return b;
    };
    const challenge = button("friend-challenge", "ui.friends.challenge", () => {
      showError(null);
      // the answer comes back with this rid: the page that sent the challenge goes to its race (challenges.js)
      app.conn.send({ t: "friend_challenge", name: f.username, rules: rules.value, rid: `fc${Date.now().toString(36)}` });
    }, true);
    challenge.disabled = f.status === "offline";
    button("friend-unfollow", "ui.friends.unfollow", () => app.conn.send({ t: "friend_unfollow", name: f.username }));
    button("friend-block", "ui.friends.block", () => app.conn.send({ t: "friend_block", name: f.username }));
    return li;
  }

  function blockedItem(/** @type {Person} */ p) {
    const li = el(`<li class="friend blocked"><div class="friend-actions"><button type="button" class="btn friend-unblock"></button></div></li>`);
    li.dataset.username = p.username;
    li.prepend(who(p));
    const b = /** @type {HTMLButtonElement} */ (li.querySelector(".friend-unblock"));
    b.textContent = t("ui.friends.unblock");
    b.setAttribute("aria-label", `${t("ui.friends.unblock")}: ${p.name || p.username}`);
    b.addEventListener("click", () => app.conn.send({ t: "friend_unblock", name: p.username }));
    return li;
  }

  function paint() {
    const signedIn = Boolean(account());
    q(".friends-signin").hidden = signedIn;
    q(".friends-body").hidden = !signedIn;
    root.dataset.loaded = String(loaded);
    if (!signedIn) return;
    q(".friends-list").replaceChildren(...following.map(item));
    q(".friends-empty").hidden = !loaded || following.length > 0;
    q(".friends-blocked").replaceChildren(...blocked.map(blockedItem));
    board.paint(daily);
  }

  q(".friends-add").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = input.value.trim();
    showError(null);
    if (!name) return;
    app.conn.send({ t: "friend_follow", name });
  });

  function listen() {
    offs = [
      app.conn.on("friends", (/** @type {import("../net/messages.js").FriendsMessage} */ msg) => {
        following = msg.following;
        blocked = msg.blocked;
        loaded = true;
        if (msg.following.some((/** @type {Friend} */ f) => f.username.toLowerCase() === input.value.trim().toLowerCase())) input.value = "";
        paint();
      }),
      app.conn.on("friends_daily", (/** @type {import("../net/messages.js").FriendsDailyMessage} */ msg) => {
        daily = msg.entries;
        paint();
      }),
      app.conn.on("error", (/** @type {import("../net/messages.js").ErrorMessage} */ msg) => {
        if (REFS.has(msg.ref)) showError(msg);
      }),
      app.conn.on("ready", () => ask()),
      onAccountChange(() => {
        paint();
        ask();
      }),
    ];
  }

  return {
    root,
    title: "ui.friends.title",
    mount() {
      translate(root);
      listen();
      paint();
      if (app.conn.welcome) ask();
      timer = setInterval(ask, REFRESH_MS);
    },
    unmount() {
      clearInterval(timer);
      for (const off of offs) off();
      offs = [];
    },
    relabel() {
      translate(root);
      paint();
    },
  };
}
