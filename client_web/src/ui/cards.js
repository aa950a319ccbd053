// @ts-check
// Card faces drawn by us: HTML for the layout, the suit shapes from the SVG sprite in index.html.
import { cardName, catalog, format } from "./i18n.js";

const RED = new Set(["H", "D"]);
const FACES = new Set(["J", "Q", "K"]);

/** The rank as printed on the card's corner, in the page's language (e.g. Romanian V/D/R).
 * @param {string} code
 * @param {string} [loc]
 * @returns {string}
 */
export function rankLabel(code, loc) {
  const r = code[0];
  if (r === "T") return "10";
  return /** @type {Record<string, string | undefined> | undefined} */ (catalog(loc).ui?.faces)?.[r] ?? r;
}

/** A card's name for its button: the spoken name ("queen of spades"), with the rank printed on its corner
 * first when the name does not say it as a word ("Q, queen of spades"), so that a voice control user can say
 * what they see (WCAG 2.5.3, label in name; issue 20.12).
 * @param {string} code
 * @param {string} [loc]
 * @returns {string}
 */
export function cardLabel(code, loc) {
  const name = cardName(code, loc);
  if (!code || code[0] === "X") return name;
  const rank = rankLabel(code, loc);
  if (name.split(/[\s,.:;·—]+/u).includes(rank)) return name;
  return format(catalog(loc).card.named, { rank, name });
}

/**
 * @param {string} suit
 * @param {string} cls
 */
function suitIcon(suit, cls) {
  return `<svg class="${cls}" viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#suit-${suit}"/></svg>`;
}

/** The inner HTML of a face-up card (a joker, a face card or a number card).
 * @param {string} code
 * @param {string} [loc]
 * @returns {string}
 */
export function faceHTML(code, loc) {
  if (code[0] === "X") {
    return `<span class="corner tl"><b>★</b></span><span class="joker-mark" aria-hidden="true">★</span><span class="corner br"><b>★</b></span>`;
  }
  const rank = rankLabel(code, loc);
  const suit = code[1];
  // the rank is printed up to three times; its first corner is the card's text (what a voice control user
  // says, and what its name contains), the repeats are drawn by CSS from data-rank (no text of the page)
  const corner = `<b>${rank}</b>${suitIcon(suit, "mini")}`;
  const repeat = `<b data-rank="${rank}"></b>${suitIcon(suit, "mini")}`;
  const middle = FACES.has(code[0])
    ? `<span class="face-panel" aria-hidden="true"><span class="face-letter" data-rank="${rank}"></span>${suitIcon(suit, "face-pip")}</span>`
    : code[0] === "A"
      ? suitIcon(suit, "ace-pip")
      : suitIcon(suit, "pip");
  return `<span class="corner tl">${corner}</span>${middle}<span class="corner br" aria-hidden="true">${repeat}</span>`;
}

/** @param {string} code */
export function cardClass(code) {
  const colour = code[0] === "X" ? "joker" : RED.has(code[1]) ? "red" : "black";
  return `card face ${colour}`;
}

/** A face-up card element (a button, so it can be tapped and focused).
 * @param {string} code
 * @param {string} [loc]
 * @param {{tag?: string}} [options] the element's tag ("span" for a card that is no button)
 * @returns {HTMLElement}
 */
export function makeCard(code, loc, { tag = "button" } = {}) {
  const el = document.createElement(tag);
  if (tag === "button") /** @type {HTMLButtonElement} */ (el).type = "button";
  el.className = cardClass(code);
  el.dataset.card = code;
  el.innerHTML = faceHTML(code, loc);
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {string} code
 * @param {string} [loc]
 */
export function paintCard(el, code, loc) {
  el.className = cardClass(code);
  el.dataset.card = code;
  el.innerHTML = faceHTML(code, loc);
}
