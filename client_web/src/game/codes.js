// @ts-check
// Game code format check, after server/golfrace/engine/codes.py: GO1-<E|C|N>-<7 or 26 letters>[-<variants>]
// (seven letters: a casual code; 26: a long code, as ranked races and the daily challenge deal). Its prefix,
// lengths, rule letters, variant letters and jokers come from the generated messages.js (CODES, BOUNDS).
// The server stays the judge; this only lets the dialog point at the wrong part while the player types.
import { BOUNDS, CODES } from "../net/messages.js";

const PREFIX = CODES.prefix;
const SEED_LETTERS = CODES.seed_letters;
const LONG_SEED_LETTERS = CODES.long_seed_letters;
/** @type {Readonly<Record<string, string>>} */
const RULE_LETTERS = CODES.rule_letters;
/** @type {Readonly<Record<string, string>>} */
const CANONICAL_LETTER = CODES.canonical_letter;
/** The variants' letters (engine/rules.py): strict S, jokers J1/J2, empty discard D, in that order. */
const { strict: STRICT, jokers: JOKER, empty_discard: EMPTY_DISCARD } = CODES.variant_letters;
const VARIANT_RE = new RegExp(`^(${STRICT}?)(?:${JOKER}([0-9]))?(${EMPTY_DISCARD}?)$`);
const MAX_JOKERS = BOUNDS.max_jokers;

/** `{ok: true, code, rules}` with the canonical spelling, or `{ok: false, part}` naming the wrong part
 * (prefix, length, rules, character, variant — the same names as the engine's CodeError.part).
 * (Its return type is inferred: a view joins it with its own `{ok, code}` literals, which only literal
 * types let it read `part` and `rules` from.)
 * @param {string | null | undefined} text
 */
export function checkCode(text) {
  const raw = String(text ?? "").trim().toUpperCase();
  const parts = raw.split("-");
  if (parts[0] !== PREFIX) return { ok: false, part: "prefix" };
  if (parts.length !== 3 && parts.length !== 4) return { ok: false, part: "length" };
  const [, ruleLetter, letters] = parts;
  if (!(ruleLetter in RULE_LETTERS)) return { ok: false, part: "rules" };
  if (letters.length !== SEED_LETTERS && letters.length !== LONG_SEED_LETTERS) return { ok: false, part: "length" };
  if (!/^[A-Z]+$/.test(letters)) return { ok: false, part: "character" };
  let variant = "";
  if (parts.length === 4) {
    const m = VARIANT_RE.exec(parts[3]);
    if (!parts[3] || !m) return { ok: false, part: "variant" };
    const jokers = Number(m[2] ?? 0);
    if (m[2] !== undefined && !(jokers >= 1 && jokers <= MAX_JOKERS)) return { ok: false, part: "variant" };
    variant = parts[3];
  }
  const rules = /** @type {import("../net/messages.js").WireRules} */ (RULE_LETTERS[ruleLetter]);
  const canonical = `${PREFIX}-${CANONICAL_LETTER[rules]}-${letters}${variant ? `-${variant}` : ""}`;
  return { ok: true, code: canonical, rules };
}

// Everything a valid code can start with: "GO1-", a rule letter, up to 26 letters, then after exactly 7 or 26
// of them a variant's start (strict S, jokers J1/J2, empty discard D, in that order).
const PREFIX_RE = new RegExp(
  `^${PREFIX}-(?:[${Object.keys(RULE_LETTERS).join("")}](?:-(?:[A-Z]{0,${LONG_SEED_LETTERS - 1}}|` +
    `(?:[A-Z]{${SEED_LETTERS}}|[A-Z]{${LONG_SEED_LETTERS}})(?:-${STRICT}?(?:${JOKER}[1-${MAX_JOKERS}]?)?${EMPTY_DISCARD}?)?))?)?$`,
);

/**
 * True while `text` can still become a valid code by typing more: the dialog waits with its error.
 * @param {string | null | undefined} text
 * @returns {boolean}
 */
export function isCodePrefix(text) {
  const raw = String(text ?? "").trim().toUpperCase();
  return `${PREFIX}-`.startsWith(raw) || PREFIX_RE.test(raw);
}

/**
 * The same deal under the other rule letter (the seven letters and the variants stay).
 * @param {string} code
 * @param {string} rules
 * @returns {string}
 */
export function withRules(code, rules) {
  const parts = code.split("-");
  parts[1] = CANONICAL_LETTER[rules] ?? parts[1];
  return parts.join("-");
}
