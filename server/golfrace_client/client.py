"""A Python client of the Golf Race protocol on the ``websockets`` package (tests, the bot, load tests).

``Client`` keeps every decoded frame (``frames``), a local view of each followed game built from snapshots
and diffs (``views``: ``client_view.GameView``; a diff that does not follow the held version raises
``ViewError`` in the reader), waits for answers with timeouts, and sends the requests (``new``, ``open``,
``act``…), resending a move's same ``seq`` while its outcome is unknown.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
from collections.abc import Callable
from typing import Any, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from golfrace.wire.messages import nonconformity
from golfrace.wire.protocol import JSON, MSGPACK
from golfrace_client.view import GameView

_T = TypeVar("_T")

DEFAULT_TIMEOUT = 5.0
RESEND_CODES = frozenset({"unavailable", "busy", "internal", "rate_limited"})
START_RETRY_S = 0.25
START_RETRY_MAX_S = 4.0
START_WAIT_S = 120.0
"""How long the bundled clients (``golfrace bot``, ``--strength``, ``play --race``, ``watch``) wait for a
server that cannot take players yet (not listening, or a Redis Cluster still syncing: ``unavailable``), saying
so, before they give up (issue 20.13)."""
"""The pauses of ``Client.start(wait_s=…)`` between attempts: doubling from the first to the last."""
"""Errors after which the outcome of an action is unknown or it was dropped: resend the same seq."""
RESEND_PAUSES_S = (0.1, 0.25, 0.5, 1.0)
"""Pauses before each resend of an action (then the last again)."""


class ClientClosed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"connection closed (code {code})")
        self.code = code


class Client:
    def __init__(
        self,
        url: str,
        codec: str = MSGPACK,
        token: str | None = None,
        lang: str = "en",
        name: str | None = None,
        sid: str | None = None,
        compression: bool = False,
        keep_frames: bool = True,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.url = url
        self.headers = headers
        """Extra handshake headers (``Origin``, ``X-Forwarded-For``: the fair-play tests)."""
        self.codec = codec
        self.token = token
        self.lang = lang
        self.name = name
        self.sid = sid
        self.compression = compression
        self.keep_frames = keep_frames
        self.ws: ClientConnection | None = None
        self.frames: list[dict[str, Any]] = []
        self.raw_frames: list[bytes | str] = []
        self.views: dict[str, GameView] = {}
        self.player: str | None = None
        self.welcome: dict[str, Any] | None = None
        self.close_code: int | None = None
        self.reader_error: Exception | None = None
        self.strange: list[str] = []
        """Received frames that are not messages of ``messages.SERVER`` (the tests assert there are none)."""
        self.on_message: Callable[[dict[str, Any]], None] | None = None
        self._inbox: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._seq = itertools.count(1)

    # --- connection ------------------------------------------------------------------------------------
    async def connect(
        self, timeout: float = DEFAULT_TIMEOUT, subprotocols: list[str] | None = None
    ) -> Client:
        protocols = [self.codec] if subprotocols is None else subprotocols
        self.ws = await asyncio.wait_for(
            connect(
                self.url,
                subprotocols=[Subprotocol(p) for p in protocols] or None,
                compression="deflate" if self.compression else None,
                max_size=2**20,
                additional_headers=self.headers,
                open_timeout=timeout,
                ping_interval=None,
            ),
            timeout,
        )
        negotiated = self.ws.subprotocol
        self.codec = MSGPACK if negotiated == MSGPACK else JSON
        self._reader = asyncio.create_task(self._read())
        return self

    async def hello(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "hello", "lang": self.lang}
        if self.token:
            msg["token"] = self.token
        if self.name:
            msg["name"] = self.name
        if self.sid:
            msg["sid"] = self.sid
        await self.send(msg)
        welcome = await self.expect_or_error("welcome", "hello", timeout, lambda m: True)
        self.welcome = welcome
        self.token, self.player, self.sid = welcome["token"], welcome["player"], welcome["sid"]
        return welcome

    async def start(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        wait_s: float = 0.0,
        say: Callable[[str], None] | None = None,
    ) -> Client:
        """Connect and say ``hello``. With ``wait_s``: while the server cannot take the player yet (it is not
        listening, or its storage answers ``unavailable``: a Redis Cluster still syncing), try again after a
        growing pause for up to ``wait_s`` seconds, telling ``say`` what it waits for once per reason."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        pause, said = START_RETRY_S, ""
        while True:
            try:
                await self.connect(timeout)
                await self.hello(timeout)
                return self
            except (RequestError, OSError, TimeoutError, ClientClosed) as exc:
                code = exc.code if isinstance(exc, RequestError) else None
                if code is not None and code not in RESEND_CODES:
                    raise
                if loop.time() + pause > deadline:
                    raise
                why = f"waiting for the server: {code or type(exc).__name__} (retrying)"
                if say is not None and why != said:
                    say(why)
                    said = why
            await self.close()
            await asyncio.sleep(pause)
            pause = min(pause * 2, START_RETRY_MAX_S)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 2.0)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader

    async def __aenter__(self) -> Client:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- frames ------------------------------------------------------------------------------------------
    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(self.encode(message))

    def encode(self, message: dict[str, Any]) -> bytes | str:
        if self.codec == MSGPACK:
            return msgpack.packb(message, use_bin_type=True)  # type: ignore[no-any-return]
        return json.dumps(message)

    async def send_raw(self, frame: bytes | str) -> None:
        if self.ws is None:
            raise ClientClosed(None)
        try:
            await self.ws.send(frame)
        except ConnectionClosed as exc:
            raise ClientClosed(self.ws.close_code) from exc

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                if self.keep_frames:
                    self.raw_frames.append(frame)
                msg = msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes) else json.loads(frame)
                if self.keep_frames:
                    self.frames.append(msg)
                reason = nonconformity(msg) if isinstance(msg, dict) else "not a map"
                if reason is not None:
                    self.strange.append(reason)
                self._track(msg)
                if self.on_message is not None:
                    self.on_message(msg)
                self._inbox.append(msg)
                self._arrived.set()
        except ConnectionClosed:
            pass
        except Exception as exc:  # a ViewError or a bad frame: surfaced to waiters
            self.reader_error = exc
        finally:
            self.close_code = self.ws.close_code
            self._arrived.set()

    def _track(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "snapshot":
            state = copy.deepcopy(msg["state"])  # frames stay as received
            self.views[msg["game"]] = GameView(msg["game"], msg["v"], msg["role"], state)
        elif t == "diff" and msg["game"] in self.views:
            self.views[msg["game"]].apply(msg)

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        return await self.expect(None, timeout)

    async def expect(
        self,
        t: str | None,
        timeout: float = DEFAULT_TIMEOUT,
        where: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """The first received message (oldest first) of type ``t`` matching ``where``; earlier messages of
        other kinds stay queued for later calls."""

        def take() -> dict[str, Any] | None:
            for i, msg in enumerate(self._inbox):
                if (t is None or msg.get("t") == t) and (where is None or where(msg)):
                    del self._inbox[i]
                    return msg
            return None

        return await self._until(
            take, timeout, lambda: f"no {t or 'message'} within {timeout} s; pending: {self._inbox[-5:]}"
        )

    async def wait_version(self, game: str, v: int, timeout: float = DEFAULT_TIMEOUT) -> GameView:
        """Wait until the local view of ``game`` reached version ``v`` (diffs are applied by the reader)."""

        def reached() -> GameView | None:
            view = self.views.get(game)
            return view if view is not None and view.v >= v else None

        return await self._until(
            reached, timeout, lambda: f"{game} did not reach version {v} within {timeout} s"
        )

    async def _until(self, probe: Callable[[], _T | None], timeout: float, failure: Callable[[], str]) -> _T:
        """``probe()`` as soon as it finds something, re-checked whenever the reader delivers a message."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = probe()
            if found is not None:
                return found
            if self.reader_error is not None:
                raise self.reader_error
            if self._reader is not None and self._reader.done():
                raise ClientClosed(self.close_code)
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(failure())
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)

    def drain(self) -> list[dict[str, Any]]:
        out, self._inbox = self._inbox, []
        return out

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        if self._reader is not None:
            await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code

    # --- requests ------------------------------------------------------------------------------------------
    async def new(
        self,
        code: str | None = None,
        rules: str | None = None,
        variants: dict[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> GameView:
        rid = f"r{next(self._seq)}"
        msg: dict[str, Any] = {"t": "new", "rid": rid}
        if code is not None:
            msg["code"] = code
        if rules is not None:
            msg["rules"] = rules
        if variants is not None:
            msg["variants"] = variants
        await self.send(msg)
        snap = await self.expect_or_error("snapshot", "new", timeout, where=lambda m: m.get("rid") == rid)
        return self.views[snap["game"]]

    async def open(self, game: str, role: str = "player", timeout: float = DEFAULT_TIMEOUT) -> GameView:
        await self.send({"t": "open", "game": game, "role": role})
        await self.expect_or_error("snapshot", "open", timeout, where=lambda m: m.get("game") == game)
        return self.views[game]

    async def act(
        self,
        game: str,
        a: str,
        col: int | None = None,
        row: int | None = None,
        seq: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> dict[str, Any]:
        """Send an action and return its ``ack`` or ``refused`` (or the ``error`` naming its seq). An error
        that leaves the outcome unknown (``RESEND_CODES``: ``unavailable``, ``busy``…) is answered by sending
        the same seq again, after a growing pause, until ``timeout``: a seq is never applied twice, so the
        action lands once; the last error is returned when time runs out."""
        seq = next(self._seq) if seq is None else seq
        msg: dict[str, Any] = {"t": "act", "game": game, "seq": seq, "a": a}
        if col is not None:
            msg["col"] = col
        if row is not None:
            msg["row"] = row
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for pause in itertools.chain(RESEND_PAUSES_S, itertools.repeat(RESEND_PAUSES_S[-1])):
            await self.send(msg)
            answer = await self.expect(
                None,
                max(0.0, deadline - loop.time()),
                where=lambda m: (
                    m.get("t") in ("ack", "refused", "error") and (m.get("seq") == seq or m.get("ref") == seq)
                ),
            )
            if answer["t"] != "error" or answer.get("code") not in RESEND_CODES:
                return answer
            if loop.time() + pause >= deadline:
                return answer
            await asyncio.sleep(pause)
        raise AssertionError("unreachable")

    async def close_game(self, game: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Stop following ``game`` (a connection follows at most ``limits.max_open_games``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for pause in itertools.chain(RESEND_PAUSES_S, itertools.repeat(RESEND_PAUSES_S[-1])):
            rid = f"c{next(self._seq)}"
            await self.send({"t": "close", "game": game, "rid": rid})
            answer = await self.expect(None, max(0.0, deadline - loop.time()), where=_with_rid(rid))
            if answer["t"] == "ok":
                self.views.pop(game, None)
                return
            if answer.get("code") not in RESEND_CODES or loop.time() + pause >= deadline:
                raise RequestError(answer)
            await asyncio.sleep(pause)

    def next_seq(self) -> int:
        return next(self._seq)

    async def expect_or_error(
        self, t: str, ref: str, timeout: float, where: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        msg = await self.expect(
            None,
            timeout,
            where=lambda m: (m.get("t") == t and where(m)) or (m.get("t") == "error" and m.get("ref") == ref),
        )
        if msg["t"] == "error":
            raise RequestError(msg)
        return msg

    async def ping(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        n = next(self._seq)
        await self.send({"t": "ping", "n": n})
        return await self.expect("pong", timeout, where=lambda m: m.get("n") == n)


def _with_rid(rid: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("rid") == rid


class RequestError(Exception):
    def __init__(self, message: dict[str, Any]) -> None:
        super().__init__(f"{message.get('code')}: {message.get('message')}")
        self.code = message.get("code")
        self.message = message
