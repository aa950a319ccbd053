// @ts-check
// "Follow" beside a racer in a finished race's results (the race view's and the watch view's): the server
// follows the account of that seat (a guest's seat has none) and answers with the friends list.
import { account } from "./account.js";
import { errorText, t } from "../ui/i18n.js";
import { toast } from "../ui/ui.js";

/** The seats followed from each race's results on this page: the results are painted again on every later
 * event of the race (its par, a review's mark), and a button already answered stays "Followed".
 * @type {Map<string, Set<number>>} */
const FOLLOWED = new Map();

/**
 * A follow function for `paintResults`, or null for a guest (friends are for accounts); its `followed` holds
 * the seats of `raceId` already followed.
 * @param {import("../net/net.js").Connection} conn
 * @param {string} raceId
 * @returns {(((seat: number, button: HTMLButtonElement) => void) & {followed: Set<number>}) | null}
 */
export function seatFollower(conn, raceId) {
  if (!account()) return null;
  const followed = FOLLOWED.get(raceId) ?? new Set();
  FOLLOWED.set(raceId, followed);
  const follow = (/** @type {number} */ seat, /** @type {HTMLButtonElement} */ button) => {
    const rid = `ff${seat}${Date.now().toString(36)}`;
    button.disabled = true;
    /** @type {(() => void)[]} */
    const offs = [];
    const done = () => offs.forEach((off) => off());
    offs.push(
      conn.on("friends", (/** @type {any} */ msg) => {
        if (msg.rid !== rid) return;
        done();
        followed.add(seat);
        // the results may have been painted again while the answer came (a later event of the race): the
        // button on the page now is another than the one pressed
        const shown = document.querySelectorAll(`.follow-racer[data-race="${raceId}"][data-seat="${seat}"]`);
        for (const b of new Set([button, ...shown])) {
          b.textContent = t("ui.friends.followed");
          /** @type {HTMLButtonElement} */ (b).disabled = true;
        }
      }),
      conn.on("error", (/** @type {any} */ msg) => {
        if (msg.rid !== rid) return;
        done();
        button.disabled = false;
        toast(msg.code === "no_such_player" ? t("ui.friends.not_an_account") : errorText(msg.code, msg.params ?? {}), "error");
      }),
    );
    conn.send({ t: "friend_follow", race: raceId, seat, rid });
  };
  return Object.assign(follow, { followed });
}
