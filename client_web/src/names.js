// @ts-check
// How a racer or a leaderboard entry is named on the page: the name they gave, else a placeholder in the
// page's language (the server sends an empty name for someone who gave none).
import { t } from "./i18n.js";

/** A racer (progress, result or board): their name, else "Player <seat>". */
export function racerName(racer) {
  return racer?.name || t("ui.player_n", { n: racer?.seat ?? "" });
}

/** A leaderboard entry, which has no seat: its name, else "Player". */
export function entryName(entry) {
  if (entry?.deleted) return t("account.deleted_player");
  return entry?.name || t("ui.player");
}
