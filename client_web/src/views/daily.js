// @ts-check
// Daily: today's challenge, the result with its share text, the streak and the countdown to the next.
// Its state and the changes per message are daily_state.js; here: listeners feed it, `render` paints it.
import { account, rankedNotice } from "../account.js";
import { errorText, t } from "../i18n.js";
import { safeStorage } from "../storage.js";
import { el, shareText, toast, translate } from "../ui.js";
import { clock } from "../format.js";
import { askNameOnce, dailyShareText, showShareText } from "../dailyshare.js";
import { initial, playLabel, reduce } from "./daily_state.js";

function askedName() {
  return safeStorage()?.getItem("golfrace.name") ?? "";
}

/** @param {import("./app.js").App} app @returns {import("./app.js").View} */
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
    </section>`);
  const q = (s) => /** @type {HTMLElement} */ (root.querySelector(s));
  let view = initial();
  let timer = null;
  const offs = [];

  /** @param {import("./daily_state.js").Msg} msg */
  function update(msg) {
    const before = view;
    view = reduce(view, msg);
    if (view === before) return;
    if (view.joined && view.joined !== before.joined) app.navigate(`#/race/${view.joined}`);
    if (view.connections !== before.connections) app.conn.send({ t: "daily" });
    if (view.notice && view.notice !== before.notice) toast(errorText(view.notice.code, view.notice.params), "error");
    if (view.daily !== before.daily) render(view);
  }

  /** @param {import("./daily_state.js").DailyState} s */
  function render(s) {
    const daily = s.daily;
    if (!daily) return;
    q(".daily-date").textContent = daily.date;
    q(".streak").textContent = String(daily.streak ?? 0);
    q(".best").textContent = String(daily.best_streak ?? 0);
    /** @type {HTMLAnchorElement} */ (q(".board-link")).href = `#/leaderboards/daily/${daily.date}`;
    rankedNotice(q(".ranked-slot"));
    q(".play-daily").textContent = t(playLabel(daily));
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
    tick();
  }

  let askedAt = 0;
  function tick() {
    const daily = view.daily;
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
    const daily = view.daily;
    const share = daily && dailyShareText(daily.date, daily.result);
    if (share && (await shareText(share)) === "copied") toast(t("ui.copied"));
  });
  q(".play-daily").addEventListener("click", async () => {
    // the first attempt of the day ranks: the name it goes on the board with is asked once, before it
    const daily = view.daily;
    const name = daily && !daily.played && !account() ? await askNameOnce() : askedName();
    if (name === null) return; // the player closed the question: nothing started
    update({ t: "play_asked" });
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
      view = initial();
      delete root.dataset.played;
      offs.push(
        app.conn.on("daily", (m) => update(m)),
        app.conn.on("race", (m) => update(m)),
        app.conn.on("error", (m) => update(m)),
        app.conn.on("ready", () => update({ t: "ready" })),
      );
      app.conn.send({ t: "daily" });
      timer = setInterval(tick, 1000);
    },
    unmount() {
      for (const off of offs.splice(0)) off();
      clearInterval(timer);
    },
    relabel() {
      translate(root);
      render(view);
    },
  };
}
