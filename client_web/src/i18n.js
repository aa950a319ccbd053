// @ts-check
// Every text the page shows comes from the engine's catalogs (server/golfrace/engine/catalogs/*.json),
// bundled at build time so the page and the server read the very same files.
import en from "../../server/golfrace/engine/catalogs/en.json";
import ro from "../../server/golfrace/engine/catalogs/ro.json";
import ms from "../../server/golfrace/engine/catalogs/ms.json";
import he from "../../server/golfrace/engine/catalogs/he.json";
import { safeStorage } from "./storage.js";

export const CATALOGS = { en, ro, ms, he };
export const LOCALES = Object.keys(CATALOGS);
export const DEFAULT_LOCALE = "en";
const STORAGE_KEY = "golfrace.lang";

let current = DEFAULT_LOCALE;
const listeners = new Set();

/** The first of the browser's languages we speak, else English. */
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

export function catalog(loc = current) {
  return CATALOGS[loc] ?? CATALOGS[DEFAULT_LOCALE];
}

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

export function onLocaleChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Python's str.format for named fields, as the catalogs are written for the engine. */
export function format(template, params = {}) {
  return String(template).replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

function lookup(path, loc) {
  let node = catalog(loc);
  for (const part of path.split(".")) {
    if (node == null) return undefined;
    node = node[part];
  }
  return node;
}

/** A UI text: `t("ui.new_game")`; a missing key falls back to English, then to the key itself. */
export function t(path, params, loc = current) {
  let value = lookup(path, loc);
  if (value === undefined) value = lookup(path, DEFAULT_LOCALE);
  if (value === undefined) return path;
  if (typeof value === "object" && params && "n" in params) value = value[pluralCategory(params.n, loc)];
  return format(value, params);
}

/** zero/one/few/other as engine/i18n.py: only Romanian separates few (2–19) from other (20+: "de"). */
export function pluralCategory(n, loc = current) {
  if (n === 0) return "zero";
  if (n === 1) return "one";
  const mod = n % 100;
  if (loc === "ro" && !(mod >= 1 && mod <= 19)) return "other";
  return "few";
}

export function cardName(code, loc = current) {
  if (!code) return "";
  const names = catalog(loc).card;
  if (code[0] === "X") return names.joker;
  return format(names.pattern, { rank: names.ranks[code[0]], suit: names.suits[code[1]] });
}

export function refusalText(code, loc = current) {
  return catalog(loc).refusal?.[code];
}

/** The player's text for a code the server sent (error, refusal, race error), in the page's language; the
 * server's own `message` is English, for logs, and is never shown. */
export function errorText(code, params = {}, loc = current) {
  if (code === "bad_code" && params?.part) {
    const part = lookup(`ui.code_errors.${params.part}`, loc);
    if (part) return part;
  }
  return lookup(`ui.errors.${code}`, loc) ?? refusalText(code, loc) ?? t("ui.errors.other", { code }, loc);
}

export function stuckText(loc = current) {
  return catalog(loc).stuck;
}

/** Numbers in the page's language, but always in Western digits (as the catalogs and codes use). */
export function num(n, loc = current) {
  return new Intl.NumberFormat(loc === "he" ? "he-IL" : loc, { useGrouping: false }).format(n);
}
