// @ts-check
// Account: sign up or sign in (passkey or username and password); signed in, the profile (games, bests per
// mode, streak, recent games with replays), names, password, passkeys, devices, and deleting the account.
// Its state and the changes per message are account_state.js; here: the forms and loads feed it, and
// `render` paints it (the signed-out forms, or the profile once it is loaded).
import { account, accountErrorText, api, onAccountChange, setAccount } from "../features/account.js";
import { clock, statusText } from "../ui/format.js";
import { locale, t } from "../ui/i18n.js";
import { el, toast, translate } from "../ui/ui.js";
import { byNameAddress, createPasskey, getPasskey, onIpAddress, passkeysAvailable, passkeysHere } from "../net/webauthn.js";
import { initial, reduce } from "./account_state.js";
import { loop } from "../ui/loop.js";
import { createRatingPanel } from "../features/ratings.js";

const SIGNED_OUT = `
  <div class="account-out">
    <div class="panel">
      <h1 data-t="account.signup_title"></h1>
      <p data-t="account.why"></p>
      <form class="account-form signup-form" novalidate>
        <label><span data-t="account.username"></span>
          <input name="username" autocomplete="username" dir="ltr" spellcheck="false" data-bound="username_max" required>
          <small data-t="account.username_hint"></small></label>
        <label><span data-t="account.display"></span><input name="display" data-bound="display_max" autocomplete="nickname"></label>
        <p class="passkey-by-name" hidden><span data-t="account.passkey_by_name"></span>
          <span class="passkey-local" hidden><span data-t="account.passkey_open_by_name"></span> <a dir="ltr"></a></span></p>
        <button type="button" class="btn primary signup-passkey" data-t="account.signup_passkey"></button>
        <p class="or" data-t="account.or"></p>
        <label><span data-t="account.password"></span>
          <input name="password" type="password" autocomplete="new-password" dir="ltr" data-bound="password_max">
          <small data-t="account.password_hint"></small></label>
        <button type="submit" class="btn signup-password" data-t="account.signup_password"></button>
      </form>
    </div>
    <div class="panel">
      <h2 data-t="account.signin_title"></h2>
      <button type="button" class="btn primary signin-passkey" data-t="account.signin_passkey"></button>
      <p class="or" data-t="account.or"></p>
      <form class="account-form signin-form" novalidate>
        <label><span data-t="account.username"></span>
          <input name="username" autocomplete="username" dir="ltr" spellcheck="false" data-bound="username_sent_max"></label>
        <label><span data-t="account.password"></span>
          <input name="password" type="password" autocomplete="current-password" dir="ltr" data-bound="password_sent_max"></label>
        <button type="submit" class="btn signin-password" data-t="account.signin_password"></button>
      </form>
    </div>
  </div>`;

const SIGNED_IN = `
  <div class="account-in">
    <div class="panel">
      <h1 class="account-name"></h1>
      <p class="account-username" dir="ltr"></p>
      <div class="row"><button type="button" class="btn sign-out" data-t="account.sign_out"></button></div>
    </div>
    <div class="panel">
      <h2 data-t="account.stats"></h2>
      <dl class="account-totals"></dl>
      <p class="account-see-stats"><a href="#/stats" data-t="account.see_stats"></a></p>
      <h2 data-t="account.recent"></h2>
      <ul class="account-recent"></ul>
      <p class="empty account-no-games" data-t="account.no_games" hidden></p>
    </div>
    <div class="panel">
      <h2 data-t="account.settings"></h2>
      <form class="account-form display-form" novalidate>
        <label><span data-t="account.display"></span><input name="display" data-bound="display_max"></label>
        <button type="submit" class="btn" data-t="account.save"></button>
      </form>
      <form class="account-form rename-form" novalidate>
        <label><span data-t="account.new_username"></span>
          <input name="username" dir="ltr" spellcheck="false" data-bound="username_max"></label>
        <button type="submit" class="btn" data-t="account.rename"></button>
      </form>
      <form class="account-form password-form" novalidate>
        <label class="current-field"><span data-t="account.current_password"></span>
          <input name="current" type="password" autocomplete="current-password" dir="ltr"></label>
        <label><span data-t="account.new_password"></span>
          <input name="password" type="password" autocomplete="new-password" dir="ltr" data-bound="password_max"></label>
        <button type="submit" class="btn" data-t="account.change_password"></button>
      </form>
      <p class="account-passkeys"></p>
      <div class="account-form add-passkey-form">
        <label class="add-passkey-field"><span data-t="account.your_password"></span>
          <input name="confirm-password" type="password" autocomplete="current-password" dir="ltr" data-bound="password_sent_max"></label>
        <button type="button" class="btn add-passkey" data-t="account.add_passkey"></button>
      </div>
    </div>
    <div class="panel">
      <h2 data-t="account.sessions"></h2>
      <ul class="account-sessions"></ul>
      <button type="button" class="btn sign-out-all" data-t="account.sign_out_all"></button>
    </div>
    <div class="panel danger">
      <h2 data-t="account.delete_title"></h2>
      <p data-t="account.delete_warning"></p>
      <form class="account-form delete-form" novalidate>
        <label><span data-t="account.delete_confirm"></span><input name="confirm" dir="ltr" spellcheck="false"></label>
        <label class="delete-password-field"><span data-t="account.your_password"></span>
          <input name="password" type="password" autocomplete="current-password" dir="ltr" data-bound="password_sent_max"></label>
        <button type="submit" class="btn danger delete-password" data-t="account.delete"></button>
        <button type="button" class="btn danger delete-passkey" data-t="account.delete_passkey"></button>
      </form>
    </div>
  </div>`;

/** @typedef {import("./account_state.js").AccountState} AccountState */

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createAccountView(app) {
  const root = el(`
    <section class="view account-view">
      <p class="field-error account-error" role="alert" hidden></p>
      <div class="account-body"></div>
    </section>`);
  const body = /** @type {HTMLElement} */ (root.querySelector(".account-body"));
  const errorLine = /** @type {HTMLElement} */ (root.querySelector(".account-error"));
  const v = loop({ initial: initial(), reduce, effects, render });
  /** @type {Record<string, any> | null} the account the signed-in page shows (which proof it can give) */
  let shown = null;

  /** What a change leads to beyond the page: signing out when the server says the page is not signed in, and
   * for the account shown, its profile loaded (or, signed out, why passkeys are missing here).
   * @param {AccountState} before @param {AccountState} after */
  function effects(before, after) {
    if (after.expired && !before.expired) changed(null);
    if (after.shows !== before.shows) {
      if (after.player) loadProfile(after.loads);
      else if (!passkeysAvailable() && !onIpAddress()) showError({ code: "passkey_unsupported" });
    }
  }

  /** @param {Record<string, any> | null} err */
  const showError = (err) => v.update({ t: "error", error: err });

  /** Signed in or out: the websocket reconnects, so that it is the account's player (or a new guest).
   * @param {Record<string, any> | null} value the account (null: signed out) */
  function changed(value) {
    setAccount(value); // re-renders through the listener below
    app.reconnect();
  }

  /** @param {HTMLButtonElement | null} button @param {() => Promise<void>} work */
  async function run(button, work) {
    showError(null);
    if (button) button.disabled = true;
    try {
      await work();
    } catch (err) {
      const why = /** @type {Record<string, any> | null} */ (err); // a browser's DOMException, or the API's {code}
      if (why?.name === "NotAllowedError" || why?.name === "AbortError") showError({ code: "passkey_cancelled" });
      else if (err instanceof Error) showError({ code: "bad_passkey" });
      else showError(why);
    } finally {
      if (button) button.disabled = false;
    }
  }

  /** @param {HTMLFormElement} form @param {string} name */
  const value = (form, name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value;
  /** @param {Event} e */
  const clicked = (e) => /** @type {HTMLButtonElement} */ (e.currentTarget);

  function renderSignedOut() {
    body.replaceChildren(el(SIGNED_OUT));
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (body.querySelector(s));
    const signup = /** @type {HTMLFormElement} */ (q(".signup-form"));
    const signin = /** @type {HTMLFormElement} */ (q(".signin-form"));
    const passkeys = passkeysHere();
    for (const b of [q(".signup-passkey"), q(".signin-passkey")]) /** @type {HTMLButtonElement} */ (b).disabled = !passkeys;
    if (onIpAddress()) {
      // WebAuthn needs a domain name: on an IP address the page offers the password only, and says why
      for (const b of body.querySelectorAll(".signup-passkey, .signin-passkey, .or")) /** @type {HTMLElement} */ (b).hidden = true;
      q(".passkey-by-name").hidden = false;
      const local = byNameAddress();
      if (local) {
        q(".passkey-local").hidden = false;
        const link = /** @type {HTMLAnchorElement} */ (q(".passkey-local a"));
        link.href = local;
        link.textContent = local.replace(/[#?].*$/, "");
      }
    }
    q(".signup-passkey").addEventListener("click", (e) =>
      run(clicked(e), async () => {
        const start = await api("/passkey/signup/options", {
          username: value(signup, "username"),
          display: value(signup, "display"),
          token: await app.conn.tokenSoon(),
        });
        const credential = await createPasskey(start.options);
        const done = await api("/passkey/signup", { challenge_id: start.challenge_id, credential });
        changed(done.account);
      }),
    );
    signup.addEventListener("submit", (e) => {
      e.preventDefault();
      run(/** @type {HTMLButtonElement} */ (q(".signup-password")), async () => {
        const done = await api("/signup", {
          username: value(signup, "username"),
          display: value(signup, "display"),
          password: value(signup, "password"),
          token: await app.conn.tokenSoon(),
        });
        changed(done.account);
      });
    });
    q(".signin-passkey").addEventListener("click", (e) =>
      run(clicked(e), async () => {
        const start = await api("/passkey/signin/options", {});
        const credential = await getPasskey(start.options);
        const done = await api("/passkey/signin", { challenge_id: start.challenge_id, credential });
        changed(done.account);
      }),
    );
    signin.addEventListener("submit", (e) => {
      e.preventDefault();
      run(/** @type {HTMLButtonElement} */ (q(".signin-password")), async () => {
        const done = await api("/signin", { username: value(signin, "username"), password: value(signin, "password") });
        changed(done.account);
      });
    });
  }

  /** @param {string} mode */
  function modeName(mode) {
    const [kind, rules] = mode.split(":");
    return `${t(`account.kind_${kind}`)} · ${t(`ui.rules_${rules}`)}`;
  }

  /** @param {Record<string, any>} profile */
  function fillProfile(profile) {
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (body.querySelector(s));
    const a = profile.account;
    q(".account-name").textContent = a.display;
    q(".account-username").textContent = `@${a.username}`;
    const totals = q(".account-totals");
    totals.replaceChildren();
    for (const [key, n] of [["account.played", profile.stats.played], ["account.won", profile.stats.won],
      ["account.streak", profile.streak.current], ["account.best_streak", profile.streak.best]]) {
      const dt = document.createElement("dt");
      dt.textContent = t(key);
      const dd = document.createElement("dd");
      dd.textContent = String(n);
      dd.dataset.stat = key.split(".")[1];
      totals.append(dt, dd);
    }
    // each mode's numbers: the Stats page has them (a second table here said the same under other labels)
    q(".account-see-stats").hidden = Object.keys(profile.stats.modes).length === 0;
    const list = q(".account-recent");
    list.replaceChildren();
    for (const g of profile.recent) {
      const li = document.createElement("li");
      li.dataset.game = g.game;
      const text = document.createElement("span");
      text.textContent = `${modeName(g.mode)} · ${statusText(g.status)} · ${g.score} · ${clock(g.elapsed, { final: true })} · ${new Date(g.finished_at).toLocaleDateString(locale())}`;
      li.append(text);
      if (g.race) {
        const link = document.createElement("a");
        link.className = "btn small replay-link";
        link.href = `#/watch/${g.race}`;
        link.textContent = t("account.replay");
        li.append(" ", link);
      }
      list.append(li);
    }
    q(".account-no-games").hidden = profile.recent.length > 0;
    const display = /** @type {HTMLFormElement} */ (q(".display-form")).elements.namedItem("display");
    /** @type {HTMLInputElement} */ (display).value = a.display === a.username ? "" : a.display;
    q(".current-field").hidden = !a.password;
    q(".delete-password-field").hidden = !a.password;
    q(".add-passkey-field").hidden = Boolean(a.passkeys) || !a.password; // a passkey confirms, else the password
    shown = a;
    q(".delete-password").hidden = !a.password;
    const passkey = /** @type {HTMLButtonElement} */ (q(".delete-passkey"));
    passkey.hidden = !a.passkeys;
    passkey.disabled = !passkeysHere();
    q(".account-passkeys").textContent = t("account.passkeys", { n: a.passkeys });
  }

  /** A session's device as the server parsed it from its User-Agent: "Edge on Windows", "(iPhone)" after. */
  function deviceName(/** @type {{browser?: string | null, os?: string | null, model?: string | null} | undefined} */ d) {
    const { browser, os, model } = d ?? {};
    const name = browser && os ? t("account.device_on", { browser, os }) : (browser ?? os ?? t("account.device_unknown"));
    return model && model !== os ? `${name} (${model})` : name;
  }

  /** @param {Record<string, any>[]} sessions */
  function fillSessions(sessions) {
    const list = /** @type {HTMLElement} */ (body.querySelector(".account-sessions"));
    list.replaceChildren();
    for (const s of sessions) {
      const li = document.createElement("li");
      const text = document.createElement("span");
      const when = new Date(s.seen).toLocaleString(locale());
      const device = deviceName(s.device);
      text.textContent = s.current ? `${t("account.this_device")} · ${device} · ${when}` : `${device} · ${when}`;
      text.title = s.agent ?? ""; // the raw string, for whoever wants it
      li.dataset.current = s.current ? "1" : "";
      li.append(text);
      if (!s.current) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "btn small";
        b.textContent = t("account.sign_out");
        b.addEventListener("click", () =>
          run(b, async () => {
            await api("/signout", { sessions: [s.id] });
            v.update({ t: "sessions", sessions: (await api("/sessions")).sessions });
          }),
        );
        li.append(" ", b);
      }
      list.append(li);
    }
  }

  /** The profile and the devices of the account shown: answered as load `n` (an older answer is dropped).
   * @param {number} n */
  async function loadProfile(n) {
    let profile, sessions;
    try {
      [profile, sessions] = await Promise.all([api("/profile"), api("/sessions")]);
    } catch (err) {
      v.update({ t: "failed", n, error: /** @type {Record<string, any>} */ (err) });
      return;
    }
    v.update({ t: "loaded", n, profile, sessions: sessions.sessions });
  }

  /** The signed-in page, wired; filled by render from the state. */
  function buildSignedIn() {
    body.replaceChildren(el(SIGNED_IN));
    translate(body);
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (body.querySelector(s));
    q(".sign-out").addEventListener("click", (e) => run(clicked(e), async () => {
      await api("/signout", {});
      changed(null);
    }));
    q(".sign-out-all").addEventListener("click", (e) => run(clicked(e), async () => {
      await api("/signout", { all: true });
      changed(null);
    }));
    const saved = (/** @type {Record<string, any>} */ done) => {
      setAccount(done.account);
      toast(t("account.saved"));
      show();
    };
    /** @param {string} name @param {string} path @param {string[]} fields */
    const form = (name, path, fields) => {
      const f = /** @type {HTMLFormElement} */ (q(name));
      f.addEventListener("submit", (e) => {
        e.preventDefault();
        run(f.querySelector("button"), async () => saved(await api(path, Object.fromEntries(fields.map((k) => [k, value(f, k)])))));
      });
    };
    form(".display-form", "/display", ["display"]);
    form(".rename-form", "/rename", ["username"]);
    // what would let whoever holds this session prove to be the account (a password, one more passkey) asks
    // the account again: its current password, or a fresh assertion of one of its passkeys
    const reassert = async () => {
      const again = await api("/reauth/options", {});
      return { challenge_id: again.challenge_id, credential: await getPasskey(again.options) };
    };
    const pw = /** @type {HTMLFormElement} */ (q(".password-form"));
    pw.addEventListener("submit", (e) => {
      e.preventDefault();
      run(pw.querySelector("button"), async () => {
        const proof = shown?.password ? { current: value(pw, "current") } : await reassert();
        saved(await api("/password", { ...proof, password: value(pw, "password") }));
      });
    });
    const add = /** @type {HTMLButtonElement} */ (q(".add-passkey"));
    add.disabled = !passkeysHere();
    add.addEventListener("click", (e) => run(clicked(e), async () => {
      const field = /** @type {HTMLInputElement} */ (q(".add-passkey-field input"));
      const proof = shown?.passkeys ? await reassert() : { password: field.value };
      const start = await api("/passkey/add/options", proof);
      const credential = await createPasskey(start.options);
      saved(await api("/passkey/add", { challenge_id: start.challenge_id, credential }));
    }));
    // deleting asks again who this is (a signed-in session alone may be a borrowed phone): the password, or
    // a fresh assertion of one of the account's own passkeys
    const del = /** @type {HTMLFormElement} */ (q(".delete-form"));
    const deleted = () => {
      toast(t("account.deleted"));
      app.forgetPlayer(); // the deleted account's player id is not reused: the page starts as a new guest
      changed(null);
    };
    del.addEventListener("submit", (e) => {
      e.preventDefault();
      if (q(".delete-password-field").hidden) return; // a passkey-only account: its button below
      run(/** @type {HTMLButtonElement} */ (q(".delete-password")), async () => {
        await api("/delete", { confirm: value(del, "confirm"), password: value(del, "password") });
        deleted();
      });
    });
    q(".delete-passkey").addEventListener("click", (e) => run(clicked(e), async () => {
      const start = await api("/reauth/options", {});
      const credential = await getPasskey(start.options);
      await api("/delete", { confirm: value(del, "confirm"), challenge_id: start.challenge_id, credential });
      deleted();
    }));
  }

  /** @type {AccountState} */
  let painted = initial();
  /** @param {AccountState} s */
  function render(s) {
    const was = painted;
    painted = s;
    errorLine.textContent = s.error ? accountErrorText(s.error) : "";
    errorLine.hidden = !s.error;
    if (s.shows !== was.shows) {
      delete root.dataset.profile;
      if (s.player === null) {
        renderSignedOut();
        translate(body);
      }
    }
    if (s.profile && s.profile !== was.profile) {
      buildSignedIn();
      fillProfile(s.profile);
      fillSessions(s.sessions ?? []);
      root.dataset.profile = "shown";
    } else if (s.profile && s.sessions !== was.sessions) {
      fillSessions(s.sessions ?? []);
    }
  }

  /** Build the page for the account signed in now (or the forms when signed out). */
  const show = () => v.update({ t: "show", account: account() });
  /** @type {(() => void) | null} */
  let unlisten = null;

  const ratings = createRatingPanel(); // the profile shows the quick-race ratings too
  root.append(ratings.panel);
  return {
    root,
    title: "account.nav",
    mount() {
      showError(null);
      show();
      ratings.load(app.conn.token);
      unlisten = onAccountChange((/** @type {Record<string, any> | null} */ value) => {
        if ((value?.player ?? null) !== v.state().player) show();
      });
    },
    unmount() {
      v.update({ t: "leave" });
      unlisten?.();
      unlisten = null;
    },
    relabel() {
      translate(root);
      if (!errorLine.hidden) showError(null);
      show();
    },
  };
}
