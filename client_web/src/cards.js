// @ts-check
// Card faces drawn by us: HTML for the layout, the suit shapes from the SVG sprite in index.html.
import { catalog } from "./i18n.js";

const RED = new Set(["H", "D"]);
const FACES = new Set(["J", "Q", "K"]);

/** The rank as printed on the card's corner, in the page's language (e.g. Romanian V/D/R). */
export function rankLabel(code, loc) {
  const r = code[0];
  if (r === "T") return "10";
  return catalog(loc).ui?.faces?.[r] ?? r;
}

function suitIcon(suit, cls) {
  return `<svg class="${cls}" viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#suit-${suit}"/></svg>`;
}

/** The inner HTML of a face-up card (a joker, a face card or a number card). */
export function faceHTML(code, loc) {
  if (code[0] === "X") {
    return `<span class="corner tl"><b>★</b></span><span class="joker-mark" aria-hidden="true">★</span><span class="corner br"><b>★</b></span>`;
  }
  const rank = rankLabel(code, loc);
  const suit = code[1];
  const corner = `<b>${rank}</b>${suitIcon(suit, "mini")}`;
  const middle = FACES.has(code[0])
    ? `<span class="face-panel"><span class="face-letter">${rank}</span>${suitIcon(suit, "face-pip")}</span>`
    : code[0] === "A"
      ? suitIcon(suit, "ace-pip")
      : suitIcon(suit, "pip");
  return `<span class="corner tl">${corner}</span>${middle}<span class="corner br">${corner}</span>`;
}

export function cardClass(code) {
  const colour = code[0] === "X" ? "joker" : RED.has(code[1]) ? "red" : "black";
  return `card face ${colour}`;
}

/** A face-up card element (a button, so it can be tapped and focused). */
export function makeCard(code, loc, { tag = "button" } = {}) {
  const el = document.createElement(tag);
  if (tag === "button") /** @type {HTMLButtonElement} */ (el).type = "button";
  el.className = cardClass(code);
  el.dataset.card = code;
  el.innerHTML = faceHTML(code, loc);
  return el;
}

export function paintCard(el, code, loc) {
  el.className = cardClass(code);
  el.dataset.card = code;
  el.innerHTML = faceHTML(code, loc);
}
