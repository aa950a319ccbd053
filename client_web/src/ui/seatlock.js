// @ts-check
// The race board while the connection is down: visibly locked (`data-offline` on the board's panel,
// `aria-busy` on the board), and it takes at most one move, which waits in the seat's GameSession and is
// sent again with its seq once the connection is back. Online, a move waiting for its answer locks nothing.
export class SeatLock {
  /**
   * `panel`: the element that holds the board; `seat`: the GameSession of the racer's seat.
   * @param {import("../net/net.js").Connection} conn
   * @param {HTMLElement} panel
   * @param {{pending: Map<number, unknown>}} seat
   */
  constructor(conn, panel, seat) {
    this.conn = conn;
    this.panel = panel;
    this.seat = seat;
  }

  /** Repaint on every change of the connection or of the waiting moves; returns the unsubscribe. */
  listen() {
    const offs = /** @type {const} */ (["down", "ready", "ack", "refused"]).map((t) => this.conn.on(t, () => this.paint()));
    this.paint();
    return () => offs.forEach((off) => off());
  }

  /** Whether a new move may be made now: online, or offline with none waiting yet. */
  allows() {
    return this.conn.ready || this.seat.pending.size === 0;
  }

  paint() {
    const offline = !this.conn.ready;
    const waiting = this.seat.pending.size;
    if (offline) this.panel.dataset.offline = "true";
    else delete this.panel.dataset.offline;
    this.panel.dataset.waiting = String(waiting);
    const board = this.panel.querySelector(".board");
    if (board) board.setAttribute("aria-busy", String(offline));
  }
}
