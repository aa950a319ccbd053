// @ts-check
// Daily: today's challenge, the result with its share text, the streak and the countdown to the next.
// Its state and the changes per message are daily_state.js; here: listeners feed it, `render` paints it.
import { account, rankedNotice } from "../features/account.js";
import { errorText, locale, t } from "../ui/i18n.js";
import { safeStorage } from "../net/storage.js";
import { el, shareText, toast, translate } from "../ui/ui.js";
import { clock } from "../ui/format.js";
import { askNameOnce, dailyShareText, showShareText } from "../features/dailyshare.js";
import { initial, playLabel, reduce } from "./daily_state.js";
import { loop } from "../ui/loop.js";
import { createFriendsBoard } from "../features/friendsboard.js";
import { toParText } from "../game/course.js";

const PAST_DAYS = 7;

/** @typedef {import("../net/messages.js").DailyMessage} DailyMessage */
/** @typedef {import("../net/messages.js").RaceMessage} RaceMessage */
/** @typedef {import("../net/messages.js").ErrorMessage} ErrorMessage */
/** @typedef {import("../net/messages.js").FriendsDailyMessage} FriendsDailyMessage */

function askedName() {
  return safeStorage()?.getItem("golfrace.name") ?? "";
}

/** @param {import("../ui/app.js").App} app @returns {import("../ui/app.js").View} */
export function createDailyView(app) {
  const root = el(`
    <section class="view daily-view">
      <div class="panel daily-card">
        <h1><span data-t="ui.daily_title"></span> <bdi class="daily-date" dir="ltr"></bdi></h1>
        <div class="stats">
          <div class="stat"><span class="label" data-t="ui.streak"></span><span class="value streak" dir="ltr">0</span></div>
          <div class="stat"><span class="label" data-t="ui.best_streak"></span><span class="value best" dir="ltr">0</span></div>
          <div class="stat"><span class="label" data-t="ui.next_in"></span><span class="value next" dir="ltr">—</span></div>
        </div>
        <div class="daily-result" hidden>
          <h2 data-t="ui.your_result"></h2>
          <div class="stats result-line">
            <div class="stat"><span class="label" data-t="ui.score"></span><span class="value result-score" dir="ltr">—</span></div>
            <div class="stat"><span class="label" data-t="ui.time"></span><span class="value result-time" dir="ltr">—</span></div>
            <div class="stat"><span class="label" data-t="ui.moves"></span><span class="value result-moves" dir="ltr">—</span></div>
          </div>
          <pre class="share-text" dir="auto"></pre>
          <button type="button" class="btn copy-share" data-t="ui.share"></button>
        </div>
        <p class="help first-only" data-t="ui.daily_first_only"></p>
        <div class="ranked-slot" hidden></div>
        <div class="dlg-actions">
          <a class="btn board-link" data-t="ui.nav_leaderboards"></a>
          <button type="button" class="btn primary play-daily" data-t="ui.daily_play"></button>
        </div>
      </div>
      <nav class="panel daily-past" aria-labelledby="daily-past-title">
        <h2 id="daily-past-title" data-t="ui.daily_past"></h2>
        <p class="help" data-t="ui.daily_past_help"></p>
        <ul class="daily-past-days" role="list"></ul>
      </nav>
    </section>`);
  const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (root.querySelector(s));
  // the weekend's daily course (Saturdays and Sundays, UTC): an account's, dealt by the server (views/course.js)
  const coursePanel = el(`
    <div class="panel daily-course" data-testid="daily-course" hidden>
      <h2 data-t="ui.course.daily_title"></h2>
      <p class="help" data-t="ui.course.daily_lead"></p>
      <p class="daily-course-done" role="status" hidden></p>
      <div class="course-guest-slot" hidden></div>
      <div class="dlg-actions">
        <a class="btn course-day-board" data-t="ui.course.board"></a>
        <a class="btn primary play-course" data-testid="play-daily-course"></a>
      </div>
    </div>`);
  root.append(coursePanel);
  /** @type {Record<string, any> | null} */
  let course = null;
  async function askCourse() {
    const res = await fetch(`/api/course/daily?lang=${locale()}`, {
      headers: await app.conn.authHeaders(),
      cache: "no-store",
    }).catch(() => null);
    course = res?.ok ? await res.json().catch(() => null) : null;
    paintCourse();
  }
  function paintCourse() {
    const c = (/** @type {string} */ s) => /** @type {HTMLElement} */ (coursePanel.querySelector(s));
    coursePanel.hidden = !course?.weekend;
    if (!course?.weekend) return;
    const guest = !account();
    rankedNotice(c(".course-guest-slot"), { text: "ui.course.daily_guest", link: "account.daily_signin" });
    const card = course.card;
    const done = Boolean(card?.done);
    const play = /** @type {HTMLAnchorElement} */ (c(".play-course"));
    play.hidden = done;
    play.href = guest ? "#/course" : "#/course/daily";
    play.textContent = t(guest ? "ui.course.start" : card ? "ui.course.daily_continue" : "ui.course.daily_play");
    /** @type {HTMLAnchorElement} */ (c(".course-day-board")).href = `#/leaderboards/course-day/${course.date}`;
    const line = c(".daily-course-done");
    line.hidden = !done;
    line.textContent = done ? t("ui.course.daily_done", { strokes: card.total, to_par: toParText(card.to_par, t) }) : "";
    coursePanel.dataset.state = guest ? "guest" : done ? "done" : card ? "playing" : "new";
  }
  // friends: today's board of the accounts followed (signed-in pages only; it reveals only public results)
  const friendsBoard = createFriendsBoard();
  const friendsPanel = el(`<div class="panel daily-friends" hidden></div>`);
  friendsPanel.append(friendsBoard.root);
  root.append(friendsPanel);
  function askFriends() {
    friendsPanel.hidden = !account();
    if (account()) app.conn.send({ t: "friends_daily" });
  }
  const v = loop({
    initial: initial(),
    reduce,
    effects: (before, after) => {
      if (after.joined && after.joined !== before.joined) app.navigate(`#/race/${after.joined}`);
      if (after.connections !== before.connections) app.conn.send({ t: "daily" });
    },
    render: (after, before) => {
      if (after.notice && after.notice !== before.notice) toast(errorText(after.notice.code, after.notice.params), "error");
      if (after.daily !== before.daily) render(after);
    },
  });
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  /** @type {(() => void)[]} */
  const offs = [];

  /** @param {import("./daily_state.js").DailyState} s */
  function render(s) {
    const daily = s.daily;
    if (!daily) return;
    q(".daily-date").textContent = daily.date;
    q(".streak").textContent = String(daily.streak ?? 0);
    q(".best").textContent = String(daily.best_streak ?? 0);
    /** @type {HTMLAnchorElement} */ (q(".board-link")).href = `#/leaderboards/daily/${daily.date}`;
    // fair play 19.1: a guest is dealt the guests' deal, never the day's; the page says so, and what signing
    // in gives
    const guest = !account();
    rankedNotice(q(".ranked-slot"), { text: "account.daily_guest_notice", link: "account.daily_signin" });
    q(".first-only").hidden = guest;
    q(".play-daily").textContent = t(playLabel(daily, guest));
    root.dataset.guest = guest ? "1" : "0";
    const result = q(".daily-result");
    result.hidden = !daily.result;
    const r = daily.result;
    q(".result-line").hidden = !r;
    q(".result-score").textContent = r ? String(r.score) : "—";
    q(".result-time").textContent = r ? clock(r.elapsed, { final: true }) : "—"; // as the share text
    q(".result-moves").textContent = r ? String(r.moves) : "—";
    // the share text in the page's language, from the ranked result (the server's `share` is English)
    const share = dailyShareText(daily.date, daily.result);
    showShareText(q(".share-text"), share);
    q(".copy-share").hidden = !share;
    root.dataset.played = daily.played ? "1" : "0";
    paintPast(daily.date);
    tick();
  }

  /** The last `PAST_DAYS` days before `day` (UTC), each a link to its board: its leader to race as a ghost and
   * its games to analyse (views/leaderboards.js), their codes public once the day is over. @param {string} day */
  function paintPast(day) {
    const list = q(".daily-past-days");
    if (list.dataset.day === day) return;
    const start = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(start)) return;
    const links = [];
    for (let k = 1; k <= PAST_DAYS; k++) {
      const d = new Date(start - k * 86_400_000).toISOString().slice(0, 10);
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.className = "btn small";
      a.dir = "ltr";
      a.href = `#/leaderboards/daily/${d}`;
      a.dataset.day = d;
      a.textContent = d;
      li.append(a);
      links.push(li);
    }
    list.replaceChildren(...links);
    list.dataset.day = day;
  }

  let askedAt = 0;
  function tick() {
    const daily = v.state().daily;
    if (!daily?.next_at) return;
    const left = daily.next_at - app.conn.serverNow();
    if (left <= 0) {
      // a new day: ask for it, at most every 5 s (a device clock ahead of the server's would ask on every answer)
      if (Date.now() - askedAt > 5_000) {
        askedAt = Date.now();
        app.conn.send({ t: "daily" });
      }
      return;
    }
    const h = Math.floor(left / 3_600_000);
    q(".next").textContent = `${h}:${clock(left % 3_600_000).padStart(5, "0")}`;
  }

  q(".copy-share").addEventListener("click", async () => {
    const daily = v.state().daily;
    const share = daily && dailyShareText(daily.date, daily.result);
    if (share && (await shareText(share)) === "copied") toast(t("ui.copied"));
  });
  q(".play-daily").addEventListener("click", async () => {
    // the first attempt of the day ranks: the name it goes on the board with is asked once, before it
    const daily = v.state().daily;
    const name = daily && !daily.played && !account() ? await askNameOnce() : askedName();
    if (name === null) return; // the player closed the question: nothing started
    v.update({ t: "play_asked" });
    /** @type {Record<string, any>} */
    const msg = { t: "daily_play" };
    if (name) msg.name = name;
    app.conn.sendSoon(msg);
  });

  return {
    root,
    title: "ui.daily_title",
    mount() {
      translate(root);
      // the status painted on a previous visit is stale (an attempt may have ended since): the page shows
      // "played" only from this visit's answer
      v.update({ t: "reset" });
      delete root.dataset.played;
      offs.push(
        app.conn.on("daily", (/** @type {DailyMessage} */ m) => v.update(m)),
        app.conn.on("race", (/** @type {RaceMessage} */ m) => v.update(m)),
        app.conn.on("error", (/** @type {ErrorMessage} */ m) => v.update(m)),
        app.conn.on("ready", () => v.update({ t: "ready" })),
        app.conn.on("ready", () => askFriends()),
        app.conn.on("ready", () => askCourse()),
        app.conn.on("friends_daily", (/** @type {FriendsDailyMessage} */ m) => friendsBoard.paint(m.entries)),
        app.conn.on("race", (/** @type {RaceMessage} */ m) => {
          if (m.daily && m.phase === "finished") askFriends(); // my result may be on the board now
        }),
      );
      app.conn.send({ t: "daily" });
      if (app.conn.welcome) {
        askFriends();
        askCourse();
      }
      timer = setInterval(tick, 1000);
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      clearInterval(timer);
    },
    relabel() {
      translate(root);
      paintCourse();
      render(v.state());
      friendsBoard.paint();
    },
  };
}
