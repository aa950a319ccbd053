"""The terminal apps (textual): a solo game, a race seat, a watch.

Keys as in the web client: 1–7 remove a column's free card, Space or D draws, U or Ctrl+Z undoes, H asks a
hint (solo only: races get none), N deals a new game (solo), Q or Escape quits. The letters also work on a
Hebrew keyboard layout (ג draws, ו undoes, י hints, מ deals), as the web client reads physical keys.
Refusals, the stuck message and every label come from the catalogs, in ``lang``.

The solo game runs on the engine in this process (hints from the solver in a worker thread, under
``HINT_SECONDS``); a race seat and a watch go through the server with ``golfrace.client.Client``: the moves
one at a time from a queue (each answered before the next is sent), the board from the client's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from golfrace_client.client import START_WAIT_S, Client

from ..engine import Action, Draw, Game, GameCode, Refusal, Status, Tap, Undo, random_code
from ..engine.i18n import catalog, stuck_message
from ..engine.solver import solve
from .board import board_text, tui_text

HINT_SECONDS = 2.0
CONNECT_TIMEOUT_S = 10.0


def refusal_text(code: str, lang: str) -> str:
    """A refusal's or an error's text in ``lang`` (the server's English message is never shown)."""
    cat = catalog(lang)
    found = cat["refusal"].get(code) or cat["ui"]["errors"].get(code)
    return str(found) if found else str(cat["ui"]["errors"]["other"]).format(code=code)


def move_words(action: Action | None, lang: str) -> str:
    texts = catalog(lang)["ui"]["analysis"]
    if isinstance(action, Tap):
        return str(texts["column"]).format(n=action.column)
    return str(texts["draw"] if isinstance(action, Draw) else texts["undo"])


def racer_name(progress: dict[str, Any], lang: str) -> str:
    name = progress.get("name")
    return str(name) if name else str(catalog(lang)["ui"]["player_n"]).format(n=progress.get("seat", "?"))


class GolfScreen(App[None]):
    """What every terminal app shows: a head line, the board, the racers, a message and the keys."""

    CSS = """
    Screen { padding: 1 2; }
    #head { text-style: bold; margin-bottom: 1; }
    #board { margin-bottom: 1; }
    #racers { margin-bottom: 1; color: $text-muted; }
    #message { margin-bottom: 1; color: $warning; }
    #keys { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(str(n), f"tap({n})", show=False) for n in range(1, 8)],
        Binding("space,d,D,ג", "draw", show=False),
        Binding("u,U,ctrl+z,ו", "undo", show=False),
        Binding("h,H,י", "hint", show=False),
        Binding("n,N,מ", "new_game", show=False),
        Binding("q,Q,escape,/", "quit", show=False),
    ]

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        self.lang = lang
        self.message = ""
        self.ready = False
        """The widgets are there to paint (from mount to unmount)."""

    def compose(self) -> ComposeResult:
        yield Static(id="head")
        yield Static(id="board")
        yield Static(id="racers")
        yield Static(id="message")
        yield Static(tui_text("keys", self.lang), id="keys")

    def on_mount(self) -> None:
        self.title = tui_text("title", self.lang)
        self.ready = True
        self.paint()

    def tell(self, text: str) -> None:
        self.message = text
        self.paint()

    def shown(self, widget: str) -> str:
        """The plain text a widget shows now (the tests read the screen through it)."""
        content = self.query_one(f"#{widget}", Static).content
        return content.plain if isinstance(content, Text) else str(content)

    def paint(self) -> None:  # each app paints its own state, then this
        if not self.ready:
            return
        self.query_one("#message", Static).update(self.message)

    def action_tap(self, column: int) -> None:
        self.move(Tap(column))

    def action_draw(self) -> None:
        self.move(Draw())

    def action_undo(self) -> None:
        self.move(Undo())

    def move(self, action: Action) -> None:
        raise NotImplementedError

    def action_hint(self) -> None:
        self.tell(tui_text("hint_race", self.lang))

    def action_new_game(self) -> None:
        pass


class SoloApp(GolfScreen):
    """A solo game on the engine itself: nothing leaves this process."""

    def __init__(self, code: GameCode | None = None, lang: str = "en") -> None:
        super().__init__(lang)
        self.game = Game.new(code or random_code())

    def paint(self) -> None:
        if not self.ready:
            return
        g = self.game
        score = tui_text("score", self.lang, score=g.score, moves=g.moves)
        head = f"{tui_text('code', self.lang, code=g.code)}   {score}"
        self.query_one("#head", Static).update(head)
        columns = [[c.code for c in col] for col in g.columns]
        discard = g.discard.code if g.discard else None
        self.query_one("#board", Static).update(board_text(columns, discard, g.stock_count, self.lang))
        super().paint()

    def move(self, action: Action) -> None:
        try:
            self.game = self.game.apply(action)
        except Refusal as refusal:
            self.tell(refusal_text(refusal.code, self.lang))
            return
        status = self.game.status
        if status is Status.WON:
            self.tell(tui_text("won", self.lang, score=self.game.score))
        elif status is Status.STUCK:
            self.tell(stuck_message(self.lang))
        else:
            self.tell("")

    def action_hint(self) -> None:
        if self.game.status is not Status.PLAYING:
            self.tell(tui_text("hint_none", self.lang))
            return
        self.run_worker(self._hint(self.game), exclusive=True, group="hint")

    async def _hint(self, game: Game) -> None:
        result = await asyncio.to_thread(solve, game, max_seconds=HINT_SECONDS, clock=time.monotonic)
        if game is not self.game or not result.line:  # the player moved meanwhile: that hint is stale
            return
        key = "hint" if result.winnable is not False else "hint_lost"
        self.tell(tui_text(key, self.lang, move=move_words(result.line[0], self.lang)))

    def action_new_game(self) -> None:
        self.game = Game.new(random_code(self.game.rules))
        self.tell("")


class _Online(GolfScreen):
    """The connection a race seat and a watch share."""

    def __init__(self, ws_url: str, race_id: str, lang: str = "en", name: str | None = None) -> None:
        super().__init__(lang)
        self.ws_url = ws_url
        self.race_id = race_id
        self.player_name = name
        self.client: Client | None = None
        self.race: dict[str, Any] | None = None
        self.message = tui_text("connecting", lang)

    def on_mount(self) -> None:
        super().on_mount()
        self.run_worker(self._connect(), exclusive=True, group="net")

    async def _connect(self) -> None:
        client = Client(self.ws_url, lang=self.lang, name=self.player_name, keep_frames=False)
        try:
            # a server not listening yet, or on a Redis Cluster still syncing: wait, saying so (issue 20.13)
            await client.start(CONNECT_TIMEOUT_S, wait_s=START_WAIT_S, say=self._waiting)
        except Exception as exc:  # the server is not there: say so, and stay until the player quits
            self.tell(f"{refusal_text('unavailable', self.lang)} ({type(exc).__name__})")
            return
        self.client = client
        client.on_message = self.frame
        self.message = ""
        await self.joined(client)

    def _waiting(self, why: str) -> None:
        self.tell(tui_text("waiting_server", self.lang))

    async def joined(self, client: Client) -> None:
        raise NotImplementedError

    async def on_unmount(self) -> None:
        self.ready = False
        if self.client is not None:
            await self.client.close()

    def frame(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "race" and msg.get("race") == self.race_id:
            self.race = msg
        elif t == "race_progress" and msg.get("race") == self.race_id and self.race is not None:
            racer = msg["racer"]
            self.race["racers"] = [racer if r["seat"] == racer["seat"] else r for r in self.race["racers"]]
        elif t == "error":
            self.message = refusal_text(str(msg.get("code")), self.lang)
        self.paint()

    def head(self) -> str:
        phase = (self.race or {}).get("phase")
        key = {"lobby": "race_waiting", "countdown": "race_countdown", "running": "race_on"}.get(
            str(phase), "race_over" if phase else "connecting"
        )
        return tui_text(key, self.lang, race=self.race_id)

    def racers(self) -> str:
        if self.race is None:
            return ""
        status = catalog(self.lang)["ui"]["status"]
        lines = []
        results = self.race.get("results")
        if results:  # the race is over: its ranking
            for r in results:
                line = tui_text(
                    "racer",
                    self.lang,
                    name=racer_name(r, self.lang),
                    score=r.get("score", 0),
                    removed=r.get("removed", 0),
                )
                lines.append(f"{r.get('rank')}. {line} · {status.get(r.get('status'), r.get('status'))}")
            return "\n".join(lines)
        for r in self.race.get("racers", []):
            line = tui_text(
                "racer",
                self.lang,
                name=racer_name(r, self.lang),
                score=r.get("score", 0),
                removed=r.get("removed", 0),
            )
            lines.append(f"{line} · {status.get(r.get('status'), r.get('status'))}")
        return "\n".join(lines)


class RaceApp(_Online):
    """A seat in a race on a server: joins it, plays the seat once the race runs."""

    def __init__(self, ws_url: str, race_id: str, lang: str = "en", name: str | None = None) -> None:
        super().__init__(ws_url, race_id, lang, name)
        self.game_id: str | None = None
        self.opened = False
        self.moves: asyncio.Queue[Action] = asyncio.Queue()
        self.answers = 0
        """Moves the server has answered (ack or refused): the tests wait on it."""

    async def joined(self, client: Client) -> None:
        join: dict[str, Any] = {"t": "race_join", "race": self.race_id}
        if self.player_name:
            join["name"] = self.player_name
        await client.send(join)
        while True:  # the moves, one at a time: each answered before the next goes
            action = await self.moves.get()
            await self._send(client, action)

    def frame(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "race" and msg.get("race") == self.race_id:
            you = msg.get("you") or {}
            self.game_id = you.get("game") or self.game_id
            if self.game_id and msg.get("phase") != "lobby" and not self.opened and self.client is not None:
                self.opened = True
                with contextlib.suppress(RuntimeError):  # the app is closing
                    self.run_worker(self.client.open(self.game_id, "player", CONNECT_TIMEOUT_S), group="open")
        super().frame(msg)

    def state(self) -> dict[str, Any] | None:
        if self.client is None or self.game_id is None:
            return None
        view = self.client.views.get(self.game_id)
        return None if view is None else view.state

    def paint(self) -> None:
        if not self.ready:
            return
        self.query_one("#head", Static).update(self.head())
        s = self.state()
        board = "" if s is None else board_text(s["columns"], s["discard"], s["stock_count"], self.lang)
        self.query_one("#board", Static).update(board)
        self.query_one("#racers", Static).update(self.racers())
        super().paint()

    def move(self, action: Action) -> None:
        self.moves.put_nowait(action)

    async def _send(self, client: Client, action: Action) -> None:
        if self.game_id is None or self.state() is None:
            self.answers += 1
            self.tell(refusal_text("race_not_started", self.lang))
            return
        if isinstance(action, Tap):
            answer = await client.act(self.game_id, "tap", col=action.column)
        else:
            answer = await client.act(self.game_id, "draw" if isinstance(action, Draw) else "undo")
        self.answers += 1
        if answer["t"] == "ack":
            s = self.state() or {}
            status = s.get("status")
            if status == "won":
                self.tell(tui_text("won", self.lang, score=s.get("score", 0)))
            else:
                self.tell(stuck_message(self.lang) if status == "stuck" else "")
        else:
            self.tell(refusal_text(str(answer.get("code")), self.lang))


class WatchApp(_Online):
    """Every board of a race, live, as a watcher sees them (never a face-down card)."""

    def __init__(self, ws_url: str, race_id: str, lang: str = "en") -> None:
        super().__init__(ws_url, race_id, lang)
        self.boards: dict[int, dict[str, Any]] = {}

    async def joined(self, client: Client) -> None:
        await client.send({"t": "watch", "race": self.race_id})

    def frame(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "race_watch" and msg.get("race") == self.race_id:
            self.boards = {b["seat"]: b for b in msg.get("boards", [])}
            self.race = msg
        elif t == "race_board" and msg.get("race") == self.race_id:
            self.boards[msg["board"]["seat"]] = msg["board"]
        super().frame(msg)

    def paint(self) -> None:
        if not self.ready:
            return
        self.query_one("#head", Static).update(
            f"{tui_text('watching', self.lang, race=self.race_id)} · {self.head()}"
        )
        out = Text()
        for seat in sorted(self.boards):
            b = self.boards[seat]
            out.append(
                tui_text(
                    "racer",
                    self.lang,
                    name=racer_name(b, self.lang),
                    score=b.get("score", 0),
                    removed=b.get("removed", 0),
                )
                + "\n",
                style="bold",
            )
            if b.get("columns") is not None:
                out.append_text(
                    board_text(
                        b["columns"],
                        b.get("discard"),
                        b.get("stock_count") or 0,
                        self.lang,
                        hidden=bool(b.get("hidden")),
                    )
                )
            out.append("\n\n")
        self.query_one("#board", Static).update(out)
        super().paint()

    def move(self, action: Action) -> None:
        pass  # a watcher plays nothing

    def action_hint(self) -> None:
        pass
