// @ts-check
// The daily's ending, like Wordle's: right after the last move a dialog with the score, time, moves, par, the
// streak, a histogram of today's scores with the player's percentile, and the share text in the page's
// language (the system's share sheet where there is one, else copied). It follows the `race` messages of the
// daily attempts this page plays (the race view shows the board), so it needs nothing from that view.
import { account, rankedNotice } from "./account.js";
import { t } from "./i18n.js";
import { clock } from "./format.js";
import { dailyShareText, percentile, showShareText } from "./dailyshare.js";
import { unrankedReason } from "./results.js";
import { el, shareText, toast, translate } from "./ui.js";

const STATUS_RETRY_MS = [150, 300, 600, 1200, 2400]; // the result is stored just after the race's end

export function installDailyEnd(app) {
  const playing = new Set(); // daily races seen unfinished by this page: their end opens the dialog
  let open = null; // {race, dialog}

  app.conn.on("race", (m) => {
    if (!m.daily || !m.you) return;
    if (m.phase !== "finished") {
      playing.add(m.race);
      return;
    }
    if (open?.race === m.race) return paintRace(open, m); // par known, a later repeat
    if (!playing.delete(m.race)) return; // finished before this page saw it played: no fanfare
    show(m);
  });
  app.conn.on("daily", (m) => {
    if (open && m.date === open.date) paintStatus(open, m);
  });
  globalThis.addEventListener?.("hashchange", () => open?.dialog.close()); // it belongs to the attempt's view

  function show(race) {
    /** @type {HTMLDialogElement | null} */ (document.querySelector("dialog.daily-end"))?.close();
    const d = /** @type {HTMLDialogElement} */ (
      el(`
      <dialog class="dlg end daily-end" aria-labelledby="daily-end-title" data-testid="daily-end">
        <h2 id="daily-end-title"><span data-t="ui.daily_done"></span> <bdi class="de-date" dir="ltr"></bdi></h2>
        <dl class="end-stats">
          <div><dt data-t="ui.score"></dt><dd class="de-score" dir="ltr"></dd></div>
          <div><dt data-t="ui.time"></dt><dd class="de-time" dir="ltr"></dd></div>
          <div><dt data-t="ui.moves"></dt><dd class="de-moves" dir="ltr"></dd></div>
          <div><dt data-t="ui.streak"></dt><dd class="de-streak" dir="ltr">—</dd></div>
        </dl>
        <p class="par de-par"></p>
        <p class="unranked-why de-unranked" hidden></p>
        <div class="ranked-slot" hidden></div>
        <section class="de-scores" aria-labelledby="de-scores-title" hidden>
          <h3 id="de-scores-title" data-t="ui.daily_scores"></h3>
          <p class="de-players"></p>
          <ol class="histogram"></ol>
          <p class="de-percentile" hidden></p>
        </section>
        <pre class="share-text de-share" dir="auto" hidden></pre>
        <p class="help" data-t="ui.daily_first_only"></p>
        <div class="dlg-actions">
          <button type="button" class="btn primary de-share-btn" data-t="ui.share" hidden></button>
          <a class="btn de-board" data-t="ui.nav_leaderboards"></a>
          <button type="button" class="btn de-close" autofocus></button>
        </div>
      </dialog>`)
    );
    translate(d);
    d.querySelector(".de-close").textContent = t("ui.close");
    open = { race: race.race, date: race.daily, ranked: Boolean(race.ranked), dialog: d, share: "", mine: null };
    d.addEventListener("close", () => {
      d.remove();
      if (open?.dialog === d) open = null;
    });
    d.querySelector(".de-close").addEventListener("click", () => d.close());
    /** @type {HTMLAnchorElement} */ (d.querySelector(".de-board")).href = `#/leaderboards/daily/${race.daily}`;
    d.querySelector(".de-board").addEventListener("click", () => d.close());
    d.querySelector(".de-share-btn").addEventListener("click", async () => {
      if (open?.share && (await shareText(open.share)) === "copied") toast(t("ui.copied"));
    });
    document.body.append(d);
    d.showModal();
    paintRace(open, race);
    askStatus(open, 0);
    loadScores(open);
  }

  function paintRace(view, race) {
    const d = view.dialog;
    const mine = race.results?.find((r) => r.seat === race.you?.seat) ?? race.results?.[0];
    d.querySelector(".de-date").textContent = race.daily;
    d.querySelector(".de-score").textContent = mine ? String(mine.score) : "—";
    d.querySelector(".de-time").textContent = clock(mine?.elapsed, { final: true });
    d.querySelector(".de-moves").textContent = mine ? String(mine.moves) : "—";
    d.querySelector(".de-par").textContent = race.par == null ? "" : t("ui.par", { n: race.par });
    const why = d.querySelector(".de-unranked");
    why.hidden = Boolean(race.ranked);
    why.textContent = race.ranked ? "" : `${t("ui.unranked")}: ${t(unrankedReason(race))}`;
    view.mine = race.ranked ? (mine?.score ?? null) : view.mine;
    d.dataset.par = race.par == null ? "" : String(race.par);
    rankedNotice(d.querySelector(".ranked-slot"), { ranked: Boolean(race.ranked) }); // guests: sign up to rank
  }

  /** The day's status for the streak and the share text: asked again while the result is being stored. */
  function askStatus(view, attempt) {
    if (open !== view) return;
    view.statusAttempt = attempt;
    app.conn.send({ t: "daily" });
  }

  function paintStatus(view, status) {
    const d = view.dialog;
    if (view.ranked && !status.result) {
      const wait = STATUS_RETRY_MS[view.statusAttempt ?? 0];
      if (wait != null) setTimeout(() => askStatus(view, (view.statusAttempt ?? 0) + 1), wait);
      return;
    }
    d.querySelector(".de-streak").textContent = String(status.streak ?? 0);
    view.share = dailyShareText(status.date, status.result);
    const pre = d.querySelector(".de-share");
    showShareText(pre, view.share);
    pre.hidden = !view.share;
    d.querySelector(".de-share-btn").hidden = !view.share;
    if (status.result && view.mine == null) view.mine = status.result.score;
    d.dataset.status = "1";
    if (view.ranked) loadScores(view); // the result is stored now, and counted
  }

  async function loadScores(view) {
    let body;
    try {
      const answer = await fetch(`/api/daily/${view.date}/scores`, { cache: "no-store" });
      if (!answer.ok) return;
      body = await answer.json();
    } catch {
      return; // offline: the dialog stays without its histogram
    }
    if (open !== view) return;
    paintScores(view, body);
  }

  /** Whether the player's result is on the day's public board (accounts only), so among the counts. */
  const counted = () => Boolean(account());

  function paintScores(view, body) {
    const d = view.dialog;
    const scores = body.scores ?? [];
    d.querySelector(".de-scores").hidden = !scores.length;
    d.querySelector(".de-players").textContent = t("ui.daily_players", { n: body.total ?? 0 });
    const most = Math.max(1, ...scores.map(([, n]) => n));
    const bars = scores.map(([score, n]) => {
      const li = el(`<li><span class="h-score" dir="ltr"></span><span class="h-bar"><span></span></span><span class="h-n" dir="ltr"></span></li>`);
      li.querySelector(".h-score").textContent = String(score);
      li.querySelector(".h-n").textContent = String(n);
      /** @type {HTMLElement} */ (li.querySelector(".h-bar span")).style.width = `${Math.max(4, (100 * n) / most)}%`;
      if (score === view.mine && counted()) li.classList.add("me");
      return li;
    });
    d.querySelector(".histogram").replaceChildren(...bars);
    const p = percentile(scores, view.mine, counted());
    const line = d.querySelector(".de-percentile");
    line.hidden = p == null;
    line.textContent = p == null ? "" : t("ui.daily_percentile", { p });
    d.dataset.scores = String(body.total ?? 0);
  }
}
