// @ts-check
// Every text the page shows comes from the engine's catalogs (server/golfrace/engine/catalogs/*.json),
// bundled at build time so the page and the server read the very same files.
import en from "../../../server/golfrace/engine/catalogs/en.json";
import ro from "../../../server/golfrace/engine/catalogs/ro.json";
import ms from "../../../server/golfrace/engine/catalogs/ms.json";
import he from "../../../server/golfrace/engine/catalogs/he.json";
import { safeStorage } from "../net/storage.js";

/** @typedef {typeof en} Catalog one language's texts (every catalog has English's shape) */
/** @typedef {{[field: string]: unknown}} Fields */

/** @type {Record<string, Catalog>} */
export const CATALOGS = { en, ro, ms, he };
export const LOCALES = Object.keys(CATALOGS);
export const DEFAULT_LOCALE = "en";
const STORAGE_KEY = "golfrace.lang";

let current = DEFAULT_LOCALE;
/** @type {Set<(loc: string) => void>} */
const listeners = new Set();

/** The first of the browser's languages we speak, else English. */
/** @param {readonly string[]} [languages] */
export function browserLocale(languages = globalThis.navigator?.languages ?? []) {
  for (const tag of languages) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base === "iw") return "he"; // old code for Hebrew some browsers still report
    if (base === "mo") return "ro";
    if (LOCALES.includes(base)) return base;
  }
  return DEFAULT_LOCALE;
}

export function initialLocale() {
  const url = new URLSearchParams(globalThis.location?.search ?? "").get("lang");
  if (url && LOCALES.includes(url)) return url;
  const stored = safeStorage()?.getItem(STORAGE_KEY);
  if (stored && LOCALES.includes(stored)) return stored;
  return browserLocale();
}

export function locale() {
  return current;
}

/**
 * @param {string} [loc]
 * @returns {Catalog}
 */
export function catalog(loc = current) {
  return CATALOGS[loc] ?? CATALOGS[DEFAULT_LOCALE];
}

/**
 * @param {string} loc
 * @param {{remember?: boolean}} [options]
 */
export function setLocale(loc, { remember = true } = {}) {
  if (!LOCALES.includes(loc)) return;
  current = loc;
  if (remember) safeStorage()?.setItem(STORAGE_KEY, loc);
  const root = globalThis.document?.documentElement;
  if (root) {
    root.lang = loc;
    root.dir = catalog(loc).dir;
  }
  for (const fn of listeners) fn(loc);
}

/**
 * @param {(loc: string) => void} fn
 * @returns {() => void} stops listening
 */
export function onLocaleChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Python's str.format for named fields, as the catalogs are written for the engine. */
/**
 * @param {unknown} template
 * @param {object} [params] the fields, by name
 * @returns {string}
 */
export function format(template, params = {}) {
  const fields = /** @type {Fields} */ (params);
  return String(template).replace(/\{(\w+)\}/g, (m, name) => (name in fields ? String(fields[name]) : m));
}

/**
 * @param {string} path
 * @param {string} [loc]
 * @returns {unknown}
 */
function lookup(path, loc) {
  /** @type {any} */
  let node = catalog(loc);
  for (const part of path.split(".")) {
    if (node == null) return undefined;
    node = node[part];
  }
  return node;
}

/** A UI text: `t("ui.new_game")`; a missing key falls back to English, then to the key itself. */
/**
 * @param {string} path
 * @param {object} [params] the fields, by name (`n` picks the plural form)
 * @param {string} [loc]
 * @returns {string}
 */
export function t(path, params, loc = current) {
  /** @type {any} */
  let value = lookup(path, loc);
  if (value === undefined) value = lookup(path, DEFAULT_LOCALE);
  if (value === undefined) return path;
  if (typeof value === "object" && params && "n" in params) value = value[pluralCategory(/** @type {number} */ (/** @type {Fields} */ (params).n), loc)];
  return format(value, params);
}

/** zero/one/few/other as engine/i18n.py: only Romanian separates few (2–19) from other (20+: "de"). */
/**
 * @param {number} n
 * @param {string} [loc]
 * @returns {"zero" | "one" | "few" | "other"}
 */
export function pluralCategory(n, loc = current) {
  if (n === 0) return "zero";
  if (n === 1) return "one";
  const mod = n % 100;
  if (loc === "ro" && !(mod >= 1 && mod <= 19)) return "other";
  return "few";
}

/**
 * @param {string | null | undefined} code
 * @param {string} [loc]
 * @returns {string}
 */
export function cardName(code, loc = current) {
  if (!code) return "";
  const names = catalog(loc).card;
  if (code[0] === "X") return names.joker;
  return format(names.pattern, { rank: names.ranks[/** @type {keyof Catalog["card"]["ranks"]} */ (code[0])], suit: names.suits[/** @type {keyof Catalog["card"]["suits"]} */ (code[1])] });
}

/**
 * @param {string | undefined} code
 * @param {string} [loc]
 * @returns {string | undefined}
 */
export function refusalText(code, loc = current) {
  return /** @type {Record<string, string | undefined>} */ (catalog(loc).refusal)?.[/** @type {string} */ (code)];
}

/** The player's text for a code the server sent (error, refusal, race error), in the page's language; the
 * server's own `message` is English, for logs, and is never shown. */
/**
 * @param {string | undefined} code
 * @param {object | null} [params]
 * @param {string} [loc]
 * @returns {string}
 */
export function errorText(code, params = {}, loc = current) {
  const fields = /** @type {Fields | null | undefined} */ (params);
  if (code === "bad_code" && fields?.part) {
    const part = lookup(`ui.code_errors.${fields.part}`, loc);
    if (typeof part === "string") return part;
  }
  const known = lookup(`ui.errors.${code}`, loc);
  if (typeof known === "string") return known;
  return refusalText(code, loc) ?? t("ui.errors.other", { code }, loc);
}

/**
 * @param {string} [loc]
 * @returns {Catalog["stuck"]}
 */
export function stuckText(loc = current) {
  return catalog(loc).stuck;
}

/** Numbers in the page's language, but always in Western digits (as the catalogs and codes use). */
/**
 * @param {number} n
 * @param {string} [loc]
 * @returns {string}
 */
export function num(n, loc = current) {
  return new Intl.NumberFormat(loc === "he" ? "he-IL" : loc, { useGrouping: false }).format(n);
}
