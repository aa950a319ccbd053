// @ts-check
// Play: one game of Golf against the deal, with the new-game, stuck and win dialogs and the keyboard.
// The view's state and its changes per message are play_state.js; here: listeners feed it, `render` paints
// it, and what a message leads to (a fresh deal, the race's lobby, storage) is read from before and after.
import { Board } from "../board.js";
import { checkCode, isCodePrefix, withRules } from "../codes.js";
import { describeChange } from "../announce.js";
import { describeState } from "../describe.js";
import { clock } from "../format.js";
import { playerName } from "./race.js";
import { chime } from "../sound.js";
import { errorText, locale, stuckText, t } from "../i18n.js";
import { GameSession } from "../session.js";
import { settings } from "../settings.js";
import { boardKeys } from "../keys.js";
import { announce, el, hideToast, isolated, shareText, toast, translate } from "../ui.js";
import { initial, reduce } from "./play_state.js";

const WIN_PAUSE_MS = 900; // the cascade alone before the result comes over it

/**
 * @param {import("./app.js").App} app
 * @returns {import("./app.js").View & {start(welcome: object): void, readonly state: object | null, session: GameSession}}
 */
export function createPlayView(app) {
  const root = el(`
    <section class="view play" aria-labelledby="play-title">
      <h1 id="play-title" class="sr-only" data-t="ui.nav_play"></h1>
      <div class="hud">
        <div class="code-box">
          <span class="label" data-t="ui.code"></span>
          <bdi class="code" dir="ltr" data-testid="code">—</bdi>
          <button type="button" class="icon-btn copy" data-t-aria="ui.copy_code">
            <svg viewBox="0 0 24 24" aria-hidden="true"><use href="#icon-copy"/></svg>
          </button>
        </div>
        <span class="badge rules-badge" data-testid="rules"></span>
        <div class="stats">
          <div class="stat"><span class="label" data-t="ui.score"></span><span class="value score" dir="ltr">0</span></div>
          <div class="stat"><span class="label" data-t="ui.moves"></span><span class="value moves" dir="ltr">0</span></div>
        </div>
        <div class="actions">
          <button type="button" class="btn draw-btn" aria-keyshortcuts="D"><svg viewBox="0 0 24 24" aria-hidden="true"><rect x="5" y="3" width="12" height="16" rx="2" fill="none" stroke="currentColor" stroke-width="2"/><path d="M9 21h10a2 2 0 0 0 2-2V7" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg><span data-t="ui.bar_draw"></span></button>
          <button type="button" class="btn undo"><svg viewBox="0 0 24 24" aria-hidden="true"><use href="#icon-undo"/></svg><span data-t="ui.undo"></span></button>
          <button type="button" class="btn hint" aria-keyshortcuts="H"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 2a7 7 0 0 0-4 12.7V17h8v-2.3A7 7 0 0 0 12 2zM9 19h6v1.5a1.5 1.5 0 0 1-1.5 1.5h-3A1.5 1.5 0 0 1 9 20.5z" fill="currentColor"/></svg><span data-t="ui.hint"></span></button>
          <button type="button" class="btn primary new"><span data-t="ui.new_game"></span></button>
        </div>
      </div>
      <div class="board-slot"></div>
      <p class="keys-hint"><span data-t="ui.keys_hint"></span> · <span data-t="ui.key_read_board"></span></p>
      <p id="board-desc" class="sr-only"></p>
    </section>`);

  let view = initial();
  let started = false;
  const board = new Board({
    onTap: (col, row, cardEl) => {
      lastTapped = cardEl;
      session.act("tap", col, row);
    },
    onDraw: () => session.act("draw"),
  });
  let lastTapped = null;
  root.querySelector(".board-slot").append(board.el);
  board.el.setAttribute("aria-describedby", "board-desc");

  const session = new GameSession(app.conn, {
    onChange: (next, change, diff) => update({ t: "shown", state: next, change, diff }),
    onRefused: (msg) => update(/** @type {import("./play_state.js").Msg} */ (msg)), // a `refused`
    onError: (msg) => update(/** @type {import("./play_state.js").Msg} */ (msg)), // an `error`
  });

  /** @param {import("./play_state.js").Msg} msg */
  function update(msg) {
    const before = view;
    view = reduce(view, msg);
    if (view === before) return;
    effects(before, view);
    render(view);
  }

  /** What a message leads to besides the page: storage, the speed report, a fresh deal, the race lobby.
   * @param {import("./play_state.js").PlayState} before @param {import("./play_state.js").PlayState} after */
  function effects(before, after) {
    const next = after.game;
    if (next && next !== before.game) {
      if (after.change !== "snapshot" && next.v === 1 && !settings.started(next.game)) settings.setStarted(next.game, Date.now());
      settings.game = next.game;
    }
    if (after.hint && !before.hint && !app.conn.send({ t: "hint", game: after.hint.game })) update({ t: "hint_unsent" });
    if (after.deals !== before.deals) {
      settings.game = null;
      startRandom();
    }
    if (after.raceJoined && after.raceJoined !== before.raceJoined) app.navigate(`#/race/${after.raceJoined}`);
  }

  const q = (sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
  const button = (sel) => /** @type {HTMLButtonElement} */ (root.querySelector(sel));
  q(".copy").addEventListener("click", async () => {
    const code = view.game?.code;
    if (code && (await shareText(code, { copyOnly: true }))) toast(t("ui.copied"));
  });
  q(".undo").addEventListener("click", () => session.act("undo"));
  q(".draw-btn").addEventListener("click", () => session.act("draw"));
  q(".new").addEventListener("click", () => openNewDialog());
  q(".hint").addEventListener("click", () => askHint());

  // --- hints: the server's solver suggests a move; the board points at it for a moment ------------------
  const askHint = () => update({ t: "hint_asked" });
  app.conn.on("hint", (m) => update(m));
  app.conn.on("ready", () => update({ t: "ready" }));

  // --- painting: the state alone, plus what the page already shows (DOM only) -------------------------
  /** @type {import("./play_state.js").PlayState} */
  let painted = initial();
  /** @param {import("./play_state.js").PlayState} s */
  function render(s) {
    const began = performance.now();
    const was = painted;
    painted = s;
    const next = s.game;
    if (next && next !== was.game) {
      board.render(next, s.change, s.diff, locale());
      const description = describeState(next, locale());
      q("#board-desc").textContent = description;
      if (s.change !== "snapshot") {
        // only what changed; B reads the whole board (the board's description)
        announce(describeChange(was.game, next, s.diff, locale()) ?? description);
        hideToast("refusal"); // an explanation of an earlier refusal is stale once a move went through
      }
    }
    paintHud(s);
    if (next && next !== was.game) {
      if (s.diff) measure(session.receivedAt ?? began);
      if (!was.game) app.boardShown();
    }
    if (s.hint && !was.hint) root.dataset.hint = "asked";
    if (s.pointed && s.pointed !== was.pointed) {
      const move = s.pointed.move;
      const target = /** @type {HTMLElement | null} */ (board.highlight(move));
      root.dataset.hint = move.a === "tap" ? `tap:${move.col}` : "draw";
      target?.focus?.({ preventScroll: true });
    }
    if (s.notice && s.notice !== was.notice) {
      const n = s.notice;
      toast(n.code ? errorText(n.code, n.params) : t(n.key), n.kind);
    }
    if (s.refusal && s.refusal !== was.refusal) refused(s.refusal);
    if (s.end !== was.end) {
      if (was.end?.kind && !s.end?.kind) closeEndDialogs();
      if (s.end?.kind === "stuck") openStuckDialog();
      else if (s.end?.kind === "won") openWinDialog();
    }
  }

  /** Speed report: a diff's receipt → DOM, style and layout done, and → the next frame painted. */
  function measure(receivedAt) {
    board.el.getBoundingClientRect(); // force style and layout now, inside the measured time
    const apply = performance.now() - receivedAt;
    requestAnimationFrame(() =>
      setTimeout(() => {
        const list = app.metrics.diffs;
        if (list.length >= 500) list.shift();
        list.push({ apply, frame: performance.now() - receivedAt });
      }, 0),
    );
  }

  /** @param {import("./play_state.js").PlayState} s */
  function paintHud(s) {
    const state = s.game;
    if (!state) return;
    q(".code").textContent = state.code ?? "—";
    button(".copy").disabled = !state.code; // kept in the layout (hidden by CSS): the HUD does not reflow
    q(".rules-badge").textContent = t(state.rules === "classic" ? "ui.rules_classic" : "ui.rules_easy");
    q(".rules-badge").dataset.rules = state.rules;
    q(".score").textContent = String(state.score);
    q(".moves").textContent = String(state.moves);
    button(".undo").disabled = !state.can_undo || state.status === "won";
    button(".hint").disabled = Boolean(s.hint) || state.status !== "playing" || state.role !== "player";
    root.dataset.status = state.status;
    root.dataset.v = String(state.v);
  }

  /** @param {{code: string, params?: object}} refusal */
  function refused(refusal) {
    if (!settings.interactive) return;
    const text = errorText(refusal.code, refusal.params);
    toast(text, "refusal");
    if (lastTapped && refusal.code !== "nothing_to_undo") board.shake(lastTapped);
    lastTapped = null;
  }

  function startRandom() {
    session.newGame({ rules: settings.rules }).catch(() => {});
  }

  // --- dialogs ------------------------------------------------------------------------------------------
  function closeEndDialogs() {
    for (const d of document.querySelectorAll("dialog.end[open]")) /** @type {HTMLDialogElement} */ (d).close();
  }

  /** @param {string} html */
  function dialog(html) {
    const d = /** @type {HTMLDialogElement} */ (el(html));
    translate(d);
    d.addEventListener("close", () => d.remove());
    document.body.append(d);
    d.showModal();
    return d;
  }

  function openNewDialog() {
    if (document.querySelector("dialog.new-game[open]")) return;
    closeEndDialogs();
    const d = dialog(`
      <dialog class="dlg new-game" aria-labelledby="new-title">
        <form method="dialog" novalidate>
          <h2 id="new-title" data-t="ui.new_game"></h2>
          <label class="field-label" for="code-input" data-t="ui.code_label"></label>
          <input id="code-input" name="code" dir="ltr" autocomplete="off" autocapitalize="characters" spellcheck="false"
                 placeholder="GO1-E-ABCDEFG" aria-describedby="code-help code-error">
          <p id="code-help" class="help" data-t="ui.code_help"></p>
          <p id="code-error" class="field-error" role="alert" hidden></p>
          <fieldset class="rules-choice">
            <legend data-t="ui.rules_label"></legend>
            <label class="choice"><input type="radio" name="rules" value="easy"><span><b data-t="ui.rules_easy"></b><small data-t="ui.rules_easy_hint"></small></span></label>
            <label class="choice"><input type="radio" name="rules" value="classic"><span><b data-t="ui.rules_classic"></b><small data-t="ui.rules_classic_hint"></small></span></label>
          </fieldset>
          <label class="switch"><input type="checkbox" name="interactive"><span><b data-t="ui.interactive"></b><small data-t="ui.interactive_help"></small></span></label>
          <label class="switch"><input type="checkbox" name="sound"><span><b data-t="ui.sound"></b><small data-t="ui.sound_help"></small></span></label>
          <div class="dlg-actions">
            <button type="button" class="btn cancel" data-t="ui.cancel"></button>
            <button type="submit" class="btn primary deal" data-t="ui.deal"></button>
          </div>
        </form>
      </dialog>`);
    const form = d.querySelector("form");
    /** @param {string} name */
    const field = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
    const input = field("code");
    const interactive = field("interactive");
    const sound = field("sound");
    const error = /** @type {HTMLElement} */ (d.querySelector("#code-error"));
    const radios = [.../** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll("input[name=rules]"))];
    const pick = (rules) => radios.forEach((r) => (r.checked = r.value === rules));
    pick(settings.rules);
    interactive.checked = settings.interactive;
    sound.checked = settings.sound;
    sound.addEventListener("change", () => {
      settings.sound = sound.checked;
    });

    const showError = (text) => {
      error.textContent = text ?? "";
      error.hidden = !text;
      input.setAttribute("aria-invalid", text ? "true" : "false");
    };
    const check = () => {
      const text = input.value.trim();
      if (!text) return { ok: true, code: null };
      return checkCode(text);
    };
    // while typing, a code that is merely unfinished is no error yet; leaving the field (or Deal) says it
    input.addEventListener("input", () => {
      const r = check();
      if (r.ok) {
        showError(null);
        if (r.code) pick(r.rules);
      } else {
        showError(isCodePrefix(input.value) ? null : t(`ui.code_errors.${r.part}`));
      }
    });
    input.addEventListener("blur", () => {
      const r = check();
      if (!r.ok) showError(t(`ui.code_errors.${r.part}`));
    });
    for (const radio of radios) {
      radio.addEventListener("change", () => {
        const r = check();
        if (r.ok && r.code) input.value = withRules(r.code, radio.value);
      });
    }
    d.querySelector(".cancel").addEventListener("click", () => d.close());
    interactive.addEventListener("change", () => {
      settings.interactive = interactive.checked;
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const r = check();
      if (!r.ok) {
        showError(t(`ui.code_errors.${r.part}`));
        input.focus();
        return;
      }
      const rules = radios.find((x) => x.checked)?.value === "classic" ? "classic" : "easy";
      settings.rules = rules;
      settings.interactive = interactive.checked;
      const deal = /** @type {HTMLButtonElement} */ (d.querySelector(".deal"));
      deal.disabled = true;
      try {
        await session.newGame(r.code ? { code: r.code } : { rules });
        hideToast();
        d.close();
      } catch (err) {
        // The server's reason, in the page's language, shown under the field like ours.
        const known = err?.code && err.code !== "offline";
        if (err?.code !== "superseded") showError(known ? errorText(err.code, err.params) : t("ui.offline"));
        deal.disabled = false;
      }
    });
    input.focus();
  }

  function openStuckDialog() {
    closeEndDialogs();
    const d = dialog(`
      <dialog class="dlg end stuck" aria-labelledby="stuck-title" data-testid="stuck-dialog">
        <h2 id="stuck-title"></h2>
        <p class="end-score"><span data-t="ui.score"></span> <b dir="ltr"></b></p>
        <div class="dlg-actions">
          <button type="button" class="btn undo-end"><span data-t="ui.undo"></span></button>
          <button type="button" class="btn primary new-end" data-t="ui.new_game"></button>
        </div>
      </dialog>`);
    d.querySelector("#stuck-title").textContent = stuckText();
    const state = view.game;
    d.querySelector(".end-score b").textContent = String(state.score);
    /** @type {HTMLButtonElement} */ (d.querySelector(".undo-end")).disabled = !state.can_undo;
    d.querySelector(".undo-end").addEventListener("click", () => {
      d.close();
      session.act("undo");
    });
    d.querySelector(".new-end").addEventListener("click", () => {
      d.close();
      openNewDialog();
    });
  }

  /** The win: a cascade of cards (not with reduced motion), the chime when the player wants sound, then the
   * result (score, moves, time, personal best, why it does not rank) and what next: share, the same deal
   * again, or a race of a friend on it. */
  let winTimer = null;
  function openWinDialog() {
    closeEndDialogs();
    const won = { ...view.game };
    const startedAt = settings.started(won.game);
    const ms = startedAt ? Math.max(0, Date.now() - startedAt) : null;
    const previous = won.code ? settings.best(won.code) : null;
    const better = !previous || won.score > previous.score || (won.score === previous.score && ms != null && ms < (previous.ms ?? Infinity));
    if (won.code && better) settings.setBest(won.code, { score: won.score, ms });
    board.cascade().then((r) => {
      if (r) app.metrics.cascade = r;
    });
    if (settings.sound && chime()) app.metrics.chimes = (app.metrics.chimes ?? 0) + 1;
    // the cascade first, the result a moment later (at once with reduced motion); not if play went on
    clearTimeout(winTimer);
    winTimer = setTimeout(() => {
      const now = view.game;
      if (!root.isConnected || !now || now.game !== won.game || now.v !== won.v) return;
      closeEndDialogs();
      const d = dialog(`
        <dialog class="dlg end won" aria-labelledby="won-title" aria-describedby="won-unranked" data-testid="win-dialog">
          <div class="fanfare" aria-hidden="true">${'<span class="mini-card"></span>'.repeat(7)}</div>
          <h2 id="won-title" data-t="ui.won_title"></h2>
          <p class="end-summary"></p>
          <dl class="end-stats">
            <div><dt data-t="ui.score"></dt><dd class="won-score" dir="ltr"></dd></div>
            <div><dt data-t="ui.time"></dt><dd class="won-time" dir="ltr"></dd></div>
            <div><dt data-t="ui.personal_best"></dt><dd class="won-best"></dd></div>
            <div><dt data-t="ui.rank"></dt><dd class="won-rank" data-t="ui.unranked"></dd></div>
          </dl>
          <p class="par won-par"></p>
          <p class="new-best" data-t="ui.new_best" hidden></p>
          <p id="won-unranked" class="unranked-why" data-t="ui.unranked_solo"></p>
          <p class="end-code"><bdi dir="ltr"></bdi></p>
          <div class="dlg-actions">
            <button type="button" class="btn share-end" data-t="ui.share"></button>
            <button type="button" class="btn again-end" data-t="ui.rematch"></button>
            <button type="button" class="btn race-end" data-t="ui.race_friend"></button>
            <button type="button" class="btn primary new-end" data-t="ui.new_game"></button>
          </div>
        </dialog>`);
      d.querySelector(".end-summary").textContent = t("ui.won_summary", { score: won.score, moves: won.moves });
      d.querySelector(".won-score").textContent = String(won.score);
      d.querySelector(".won-time").textContent = clock(ms, { final: true });
      // a cleared table is the best any line of this deal reaches: the deal's par is the score just made
      d.querySelector(".won-par").textContent = t("ui.par", { n: won.score });
      const best = better ? { score: won.score, ms } : previous;
      // score, then time, in the page's direction: each number isolated, so that Hebrew reads "350" first
      // (on the right) as English does on the left, and neither run reorders the other
      const bestBox = d.querySelector(".won-best");
      if (best) bestBox.replaceChildren(isolated(String(best.score)), " · ", isolated(clock(best.ms, { final: true })));
      else bestBox.textContent = "—";
      /** @type {HTMLElement} */ (d.querySelector(".new-best")).hidden = !(better && previous);
      d.querySelector(".end-code bdi").textContent = won.code ?? "";
      for (const b of d.querySelectorAll(".share-end, .again-end, .race-end")) /** @type {HTMLElement} */ (b).hidden = !won.code;
      d.querySelector(".share-end").addEventListener("click", async () => {
        const text = t("ui.share_win", { code: won.code, score: won.score, time: clock(ms, { final: true }), link: location.origin + "/" });
        const how = await shareText(text);
        if (how === "copied") toast(t("ui.copied"));
      });
      d.querySelector(".again-end").addEventListener("click", () => {
        d.close();
        session.newGame({ code: won.code }).catch(() => {});
      });
      d.querySelector(".race-end").addEventListener("click", () => {
        d.close();
        raceFriend(won.code);
      });
      d.querySelector(".new-end").addEventListener("click", () => {
        d.close();
        openNewDialog();
      });
      d.addEventListener("close", () => board.stopCascade());
    }, board.animated() ? WIN_PAUSE_MS : 0);
  }

  // "Race a friend on this deal": a race (casual: its code is known) on the same code, then its lobby
  let raceCount = 0;
  function raceFriend(code) {
    raceCount += 1;
    const rid = `p${raceCount}`;
    update({ t: "race_asked", rid });
    /** @type {Record<string, any>} */
    const msg = { t: "race_new", code, rid };
    const name = playerName();
    if (name) msg.name = name;
    app.conn.sendSoon(msg);
  }
  app.conn.on("race", (m) => update(m)); // its answer: the lobby (a race_new error comes through the session)

  // --- keyboard ------------------------------------------------------------------------------------------
  const onKey = boardKeys({
    tap: (col) => {
      lastTapped = board.columns[col - 1].lastElementChild;
      session.act("tap", col);
    },
    draw: () => session.act("draw"),
    undo: () => {
      lastTapped = null;
      session.act("undo");
    },
    newGame: () => openNewDialog(),
    hint: () => askHint(),
    read: () => view.game && announce(describeState(view.game, locale())),
  });

  return {
    root,
    title: "ui.nav_play",
    mount() {
      document.addEventListener("keydown", onKey);
      translate(root);
      if (app.conn.ready) this.start(app.conn.welcome);
    },
    unmount() {
      document.removeEventListener("keydown", onKey);
    },
    relabel() {
      translate(root);
      paintHud(view);
      if (view.game) {
        board.relabel(locale());
        q("#board-desc").textContent = describeState(view.game, locale());
      }
    },
    /** Once connected: reopen the last game if the server still has it for us, else deal one. */
    start(welcome) {
      if (started) return;
      started = true;
      const last = settings.game;
      const mine = Array.isArray(welcome?.games) ? welcome.games : [];
      if (last && mine.includes(last)) session.open(last, "player");
      else startRandom();
    },
    get state() {
      return view.game;
    },
    session,
  };
}
