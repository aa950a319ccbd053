// @ts-check
// The signed-in account as the page knows it (from welcome.account), the account API, and the notice shown
// where only accounts are ranked (race lobby, daily page, result dialog) with a one-tap sign-up.
import { t } from "../ui/i18n.js";

/** @typedef {NonNullable<import("../net/messages.js").WelcomeMessage["account"]>} Account the signed-in account (welcome.account) */
/** @typedef {{code: string, params: Record<string, any>}} AccountRefusal */

/** @type {Account | null} */
let current = null;
/** @type {Set<(account: Account | null) => void>} */
const listeners = new Set();

/** @returns {Account | null} */
export function account() {
  return current;
}

/** @param {Account | null | undefined} value */
export function setAccount(value) {
  current = value ?? null;
  for (const fn of [...listeners]) fn(current);
}

/**
 * @param {(account: Account | null) => void} fn
 * @returns {() => void} stops listening
 */
export function onAccountChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** An account API call: JSON in and out; a refusal rejects with {code, params}.
 * @param {string} path
 * @param {unknown} [body] posted as JSON; none: a GET
 * @returns {Promise<any>} the answer's JSON
 */
export async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  let r;
  try {
    r = await fetch(`/api/account${path}`, { credentials: "same-origin", ...init });
  } catch {
    throw { code: "unavailable", params: {} };
  }
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw { code: data.error ?? "unavailable", params: data.params ?? {} };
  return data;
}

/** The text of an account refusal in the page's language (never the server's English message).
 * @param {Partial<AccountRefusal> | null | undefined} err
 * @returns {string}
 */
export function accountErrorText(err) {
  const code = err?.code ?? "unavailable";
  const params = err?.params ?? {};
  if (code === "bad_username" || code === "bad_password") {
    return t(`account.errors.${code}_${params.reason ?? "length"}`, params);
  }
  if (code === "too_many_attempts" || code === "too_many_signups" || code === "rename_too_soon") {
    const seconds = Math.max(1, Math.ceil((params.retry_ms ?? 1000) / 1000));
    return t(`account.errors.${code}`, { seconds, minutes: Math.ceil(seconds / 60), hours: Math.ceil(seconds / 3600) });
  }
  const text = t(`account.errors.${code}`);
  return text === `account.errors.${code}` ? t("account.errors.other", { code }) : text;
}

/** Put "only accounts are ranked" (or the notice `text`, with the link `link`) into `container` (emptied) when
 * the page is not signed in; the button opens the sign-up, which keeps this browser's games (the account
 * takes this player). Returns the notice or null.
 * @param {HTMLElement} container
 * @param {{ranked?: boolean, text?: string, link?: string}} [options]
 * @returns {HTMLElement | null}
 */
export function rankedNotice(
  container,
  { ranked = true, text: textKey = "account.ranked_notice", link: linkKey = "account.ranked_signup" } = {},
) {
  container.replaceChildren();
  if (!ranked || current) {
    container.hidden = true;
    return null;
  }
  const p = document.createElement("p");
  p.className = "ranked-notice";
  p.dataset.rankedNotice = "1";
  const text = document.createElement("span");
  text.textContent = t(textKey);
  const link = document.createElement("a");
  link.className = "btn small";
  link.href = "#/account";
  link.textContent = t(linkKey);
  p.append(text, " ", link);
  container.append(p);
  container.hidden = false;
  return p;
}
