// @ts-check
// Friend challenges in every view: a signed-in page asks for its friends on each connection (which makes it
// online for them and lets their challenges reach it), shows each challenge as a card — accept or decline
// one sent to this account, withdraw one it sent — and drops the card when the challenge ends or runs out.
// The page that sent a challenge, and the one that accepted it, go to the race; the account's other pages
// offer a link to it.
import { account } from "./account.js";
import { errorText, t } from "../ui/i18n.js";
import { announce, el, isolatedText, toast, translate } from "../ui/ui.js";
import { RULE } from "../net/messages.js";

/**
 * The server's messages, as the generated messages.js types them.
 * @typedef {import("../net/messages.js").WirePerson} Person
 * @typedef {import("../net/messages.js").ChallengeMessage} Challenge
 * @typedef {import("../net/messages.js").ChallengeEndMessage} ChallengeEnd
 */

/** @param {import("../ui/app.js").App} app */
export function installChallenges(app) {
  const conn = app.conn;
  const box = el(`<div class="challenges" data-t-aria="ui.friends.title" role="region"></div>`);
  translate(box);
  document.body.append(box);
  /** @type {Map<string, {card: HTMLElement, msg: Challenge, timer: ReturnType<typeof setTimeout>}>} */
  const shown = new Map();
  /** Challenges this page sent or accepted: it goes to their race. */
  const mine = new Set();

  const nameOf = (/** @type {Person | null} */ p) => isolatedText(p?.name || p?.username || "");
  const outgoing = (/** @type {Challenge} */ msg) => msg.from?.username === account()?.username;

  function drop(/** @type {string} */ id) {
    const found = shown.get(id);
    if (!found) return null;
    clearTimeout(found.timer);
    found.card.remove();
    shown.delete(id);
    return found.msg;
  }

  function paint(/** @type {HTMLElement} */ card, /** @type {Challenge} */ msg) {
    const sent = outgoing(msg);
    const rules = t(msg.rules === RULE.CLASSIC ? "ui.rules_classic" : "ui.rules_easy");
    /** @type {HTMLElement} */ (card.querySelector(".challenge-text")).textContent = sent
      ? t("ui.friends.sent", { name: nameOf(msg.to) })
      : t("ui.friends.incoming", { name: nameOf(msg.from), rules });
    /** @type {HTMLElement} */ (card.querySelector(".challenge-accept")).textContent = t("ui.friends.accept");
    /** @type {HTMLElement} */ (card.querySelector(".challenge-decline")).textContent = t(sent ? "ui.friends.withdraw" : "ui.friends.decline");
    /** @type {HTMLElement} */ (card.querySelector(".challenge-accept")).hidden = sent;
  }

  function show(/** @type {Challenge} */ msg) {
    if (msg.rid) mine.add(msg.challenge);
    if (shown.has(msg.challenge)) return;
    const card = el(`<section class="challenge-card" role="alert">
      <p class="challenge-text"></p>
      <div class="challenge-actions"><button type="button" class="btn primary challenge-accept"></button><button type="button" class="btn challenge-decline"></button></div>
    </section>`);
    card.dataset.challenge = msg.challenge;
    card.dataset.direction = outgoing(msg) ? "out" : "in";
    paint(card, msg);
    /** @type {HTMLElement} */ (card.querySelector(".challenge-accept")).addEventListener("click", () => {
      mine.add(msg.challenge);
      conn.send({ t: "challenge_answer", challenge: msg.challenge, accept: true });
    });
    /** @type {HTMLElement} */ (card.querySelector(".challenge-decline")).addEventListener("click", () => {
      conn.send({ t: "challenge_answer", challenge: msg.challenge, accept: false });
    });
    box.append(card);
    const left = Math.max(0, msg.expires_at - conn.serverNow());
    shown.set(msg.challenge, { card, msg, timer: setTimeout(() => drop(msg.challenge), left) });
    if (!outgoing(msg)) announce(/** @type {HTMLElement} */ (card.querySelector(".challenge-text")).textContent ?? "");
  }

  function ended(/** @type {ChallengeEnd} */ end) {
    const msg = drop(end.challenge);
    const other = msg ? (outgoing(msg) ? msg.to : msg.from) : null;
    if (end.outcome === "accepted" && end.race) {
      if (mine.has(end.challenge)) {
        mine.delete(end.challenge);
        app.navigate(`#/race/${end.race}`);
        return;
      }
      if (!msg) return;
      const card = el(`<section class="challenge-card" role="status"><p class="challenge-text"></p><div class="challenge-actions"><a class="btn primary challenge-go"></a><button type="button" class="btn challenge-close">×</button></div></section>`);
      /** @type {HTMLElement} */ (card.querySelector(".challenge-text")).textContent = t("ui.friends.ended.accepted");
      const go = /** @type {HTMLAnchorElement} */ (card.querySelector(".challenge-go"));
      go.href = `#/race/${end.race}`;
      go.textContent = t("ui.friends.go_race");
      const close = () => card.remove();
      go.addEventListener("click", close);
      /** @type {HTMLElement} */ (card.querySelector(".challenge-close")).setAttribute("aria-label", t("ui.cancel"));
      /** @type {HTMLElement} */ (card.querySelector(".challenge-close")).addEventListener("click", close);
      box.append(card);
      return;
    }
    mine.delete(end.challenge);
    if (msg) toast(t(`ui.friends.ended.${end.outcome}`, { name: nameOf(other) }));
  }

  conn.on("ready", (/** @type {any} */ { welcome }) => {
    if (welcome.account) conn.send({ t: "friends" });
    else for (const id of [...shown.keys()]) drop(id);
  });
  conn.on("challenge", (/** @type {any} */ msg) => show(msg));
  conn.on("challenge_end", (/** @type {any} */ msg) => ended(msg));
  conn.on("error", (/** @type {any} */ msg) => {
    if (msg.ref === "friend_challenge" || msg.ref === "challenge_answer") toast(errorText(msg.code, msg.params ?? {}), "error");
  });
  return {
    relabel() {
      for (const { card, msg } of shown.values()) paint(card, msg);
    },
  };
}
