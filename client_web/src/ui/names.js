// @ts-check
// How a racer or a leaderboard entry is named on the page: the name they gave, else a placeholder in the
// page's language (the server sends an empty name for someone who gave none).
import { t } from "./i18n.js";

/**
 * A racer (progress, result or board): their name, else "Player <seat>".
 * @param {{name?: string | null, seat?: number | null} | null | undefined} racer
 * @returns {string}
 */
export function racerName(racer) {
  return racer?.name || t("ui.player_n", { n: racer?.seat ?? "" });
}

/** The mark of a leaderboard entry's account username ("@ana", left to right), shown beside its display name
 * so that no name passes for another account (fair play 19.6); null when the entry has no username or its
 * name is the username.
 * @param {{username?: string | null, name?: string | null, deleted?: boolean} | null | undefined} entry
 * @returns {HTMLElement | null}
 */
export function usernameMark(entry) {
  const username = entry?.username;
  if (!username || entry?.deleted || entry?.name === username) return null;
  const mark = document.createElement("bdi");
  mark.className = "username";
  mark.dir = "ltr";
  mark.textContent = `@${username}`;
  return mark;
}

/**
 * A leaderboard entry, which has no seat: its name, else "Player".
 * @param {{name?: string | null, deleted?: boolean} | null | undefined} entry
 * @returns {string}
 */
export function entryName(entry) {
  if (entry?.deleted) return t("account.deleted_player");
  return entry?.name || t("ui.player");
}

/** The badge beside a bot racer's name (quick races seat bots beside a lone player). */
export function botBadge() {
  const badge = document.createElement("span");
  badge.className = "badge bot-badge";
  badge.dataset.testid = "bot-badge";
  badge.textContent = t("pool.bot");
  return badge;
}
