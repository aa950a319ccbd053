// @ts-check
// Small page-wide helpers: translated labels, the polite live region, toasts, copy to clipboard, text set apart
// from its neighbours' direction (bidi isolation).
import { t } from "./i18n.js";
import { BOUNDS } from "../net/messages.js";

/** Fill every `data-t` (text), `data-t-aria` (aria-label) and `data-t-ph` (placeholder) under `root`. */
/** @param {ParentNode} root */
export function translate(root) {
  for (const el of root.querySelectorAll("[data-t]")) el.textContent = t(/** @type {HTMLElement} */ (el).dataset.t ?? "");
  for (const el of root.querySelectorAll("[data-t-aria]")) el.setAttribute("aria-label", t(/** @type {HTMLElement} */ (el).dataset.tAria ?? ""));
  for (const el of root.querySelectorAll("[data-t-ph]")) {
    const field = /** @type {HTMLInputElement} */ (el);
    field.placeholder = t(field.dataset.tPh ?? "");
  }
}

/** A name or number set apart from the text around it (a `<bdi>`, left-to-right for numbers and times):
 * a Latin name in a Hebrew line, or a Hebrew name in an English one, keeps its own order and does not pull
 * its neighbours (a trailing "★", a " · ", a number) into it.
 * @param {string} text
 * @param {string} [dir]
 * @returns {HTMLElement}
 */
export function isolated(text, dir = /^[\d\s:.·/—-]*$/.test(text) ? "ltr" : "auto") {
  const b = document.createElement("bdi");
  b.dir = dir;
  b.textContent = text;
  return b;
}

/** A line of words joined by " · ", ending with a game code kept whole and left-to-right (a long code broke
 * at its hyphens and wrapped inside a Hebrew line, "GO1-E-" at one end and the rest on the next line).
 * @param {Element} box
 * @param {string[]} words
 * @param {string | null} [code]
 */
export function metaLine(box, words, code) {
  box.replaceChildren(words.join(" · "));
  if (!code) return;
  const c = isolated(code, "ltr");
  c.className = "whole";
  box.append(words.length ? " · " : "", c);
}

/** `name` isolated inside a sentence of plain text (a toast, the live region): Unicode's FSI … PDI.
 * @param {string} name
 * @returns {string}
 */
export function isolatedText(name) {
  return `\u2068${name}\u2069`;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let liveTimer;
/** Say `text` in the polite live region (cleared first so the same text is read again).
 * @param {string} text
 */
export function announce(text) {
  const region = document.getElementById("live");
  if (!region) return;
  region.textContent = "";
  clearTimeout(liveTimer);
  liveTimer = setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
/**
 * @param {string} text
 * @param {string} [kind] "info", "error", "refusal"…
 */
export function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 2600);
}

/** Hide the toast, or only a toast of `kind` (e.g. a refusal once a later move went through).
 * @param {string | null} [kind]
 */
export function hideToast(kind = null) {
  const el = document.getElementById("toast");
  if (el && (kind === null || el.dataset.kind === kind)) el.classList.remove("show");
}

/** Share `text` with the system's share sheet where there is one (a phone), else copy it: "shared",
 * "copied", or false (nothing worked, or the player closed the share sheet).
 * @param {string} text
 * @param {{copyOnly?: boolean}} [options]
 * @returns {Promise<"shared" | "copied" | false>}
 */
export async function shareText(text, { copyOnly = false } = {}) {
  if (!copyOnly && typeof navigator.share === "function") {
    try {
      await navigator.share({ text });
      return "shared";
    } catch (err) {
      if (/** @type {{name?: string} | null} */ (err)?.name === "AbortError") return false; // the player closed the sheet
    }
  }
  return (await copyText(text)) ? "copied" : false;
}

/**
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/**
 * The first element of an HTML string.
 * @param {string} html
 * @returns {HTMLElement}
 */
export function el(html) {
  const tpl = document.createElement("template");
  tpl.innerHTML = html.trim();
  const root = /** @type {HTMLElement} */ (tpl.content.firstElementChild);
  if (root) bound(root);
  return root;
}

/** Every text field under `root` (itself included) that names a bound (`data-bound="name_max"`) gets its
 * `maxlength` from the generated module's BOUNDS: no bound is typed by hand in a template.
 * @param {Element} root
 */
export function bound(root) {
  const fields = [root, ...root.querySelectorAll("[data-bound]")].filter((e) => e instanceof HTMLInputElement && e.dataset.bound);
  for (const input of /** @type {HTMLInputElement[]} */ (fields)) {
    const max = BOUNDS[/** @type {keyof typeof BOUNDS} */ (input.dataset.bound)];
    if (typeof max !== "number") throw new Error(`no bound ${input.dataset.bound}`);
    input.maxLength = max;
  }
}

/** Whether a key press belongs to a text field or an open dialog rather than to the board.
 * @param {Event} event
 * @returns {boolean}
 */
export function typingOrDialog(event) {
  const target = /** @type {Element | null} */ (event.target);
  if (target?.closest?.("input, textarea, select, [contenteditable='true']")) return true;
  return Boolean(document.querySelector("dialog[open]"));
}
