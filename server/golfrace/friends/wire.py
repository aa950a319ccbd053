"""Friends on the wire: the handlers and start-up of the friends extension (``extension.py``). Its handlers
answer the friends messages of ``wire/messages.py``; ``startup`` builds the service over the accounts and
races of this app (``ports.py``) and starts the presence refresh.

A connection is online for its friends once it asked for its list (``friends``): it then follows its
account's notice channel (challenges reach every such page, on any instance) and is stamped in Redis every
``presence_refresh_s`` with the races it joined; a connection that ends is taken off at once (its close hook,
``FriendsWire.closed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from golfrace.accounts.service import Accounts
from golfrace.engine.rules import DEFAULT_RULES
from golfrace.live.dispatch import handler
from golfrace.live.services import Context
from golfrace.live.session import Session
from golfrace.live.tasks import end
from golfrace.races.followers import RaceWire
from golfrace.store import friend_keys as keys
from golfrace.store.pubsub import Envelope
from golfrace.wire.protocol import ProtocolError

from .errors import FriendError
from .ports import AccountsPort, Person, RacesPort
from .service import Friends

log = logging.getLogger("golfrace.friends")


class FriendsWire:
    def __init__(self, ctx: Context, friends: Friends, races: RacesPort) -> None:
        self.ctx = ctx
        self.friends = friends
        self.races = races
        self.online: dict[Session, str] = {}
        """Local connections that asked for their friends → their account; each until it ends."""
        self.listed: dict[Session, tuple[int, dict[str, Any]]] = {}
        """Connection → (server ms, the list) of its last ``friends`` answer (``list_every_ms``)."""
        self.refresher: asyncio.Task[None] | None = None
        """``refresh_forever``, started and ended with the extension."""

    async def enrol(self, session: Session, player: str) -> None:
        """This connection is online for its friends and gets its account's notices: from now on, and those
        of the challenges still waiting, once (a page opened after a challenge was sent shows it too)."""
        await session.subscribe(keys.notices(player))
        first = session not in self.online
        if first:
            session.on_close(self.closed)
            self.online[session] = player
        await self.friends.stamp(player, session.serial, list(self.races.joined(session)))
        if first:
            for notice in await self.friends.pending(player):
                session.deliver(Envelope.of(keys.notices(player), notice))  # as a notice: no rid

    def keep_list(self, session: Session, at: int, listing: dict[str, Any]) -> None:
        """The ``friends`` answer just sent to ``session``, kept until it ends (its close hook drops it)."""
        session.on_close(self.closed)
        self.listed[session] = (at, listing)

    async def closed(self, session: Session) -> None:
        """The close hook of a connection online for its friends: its presence stamp goes at once."""
        self.listed.pop(session, None)
        player = self.online.pop(session, None)
        if player is not None:
            await self.friends.gone(player, session.serial)

    async def refresh_forever(self) -> None:
        settings = self.friends.settings
        while True:
            # real seconds, not the app clock's: presence is about live tabs, and a long timer on a clock
            # that tests move would be taken for one of the races' (their timing tests count those)
            await asyncio.sleep(settings.presence_refresh_s)
            try:
                await self.refresh()
            except Exception:  # Redis away: the next round tries again
                log.warning("stamping friends' presence failed", exc_info=True)

    async def refresh(self) -> None:
        """Re-stamp every local connection online for its friends (the stamps go stale otherwise)."""
        stamps = [(player, s.serial, list(self.races.joined(s))) for s, player in self.online.items()]
        await self.friends.restamp(stamps, [])


def wire_of(session: Session) -> FriendsWire:
    return session.ctx.get(FriendsWire)


async def _me(session: Session, ref: str) -> tuple[FriendsWire, Person]:
    """The caller's account: friends are for accounts with a live session only."""
    player = session.account
    if player is None:
        raise ProtocolError("not_signed_in", "friends are for accounts: sign in first", ref=ref)
    await session.ctx.identity.still_signed_in(session, ref)
    wire = wire_of(session)
    person = await wire.friends.accounts.person(player)
    if person is None:
        raise ProtocolError("not_signed_in", "the account is gone", ref=ref)
    return wire, person


def _refused(exc: FriendError, ref: str) -> ProtocolError:
    return ProtocolError(exc.code, exc.message, ref=ref, **exc.params)


async def _send_list(session: Session, wire: FriendsWire, me: Person) -> None:
    """The list after a change of it (always read afresh)."""
    listing = await wire.friends.listing(me.player)
    wire.keep_list(session, wire.friends.clock(), listing)
    session.send({"t": "friends", **listing})


@handler("friends")
async def on_friends(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friends")
    await wire.enrol(session, me.player)
    now = wire.friends.clock()
    last = wire.listed.get(session)
    if last is not None and now - last[0] < wire.friends.settings.list_every_ms:
        session.send({"t": "friends", **last[1]})  # asked again at once: the same list, no Redis read
        return
    listing = await wire.friends.listing(me.player)
    wire.keep_list(session, now, listing)
    session.send({"t": "friends", **listing})


@handler("friend_follow")
async def on_friend_follow(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friend_follow")
    by_seat = "race" in msg or "seat" in msg
    if by_seat == ("name" in msg) or (by_seat and not ("race" in msg and "seat" in msg)):
        raise ProtocolError("bad_field", "send name, or race and seat", ref="friend_follow", field="name")
    try:
        await wire.friends.charge("follow", me.player, session.network)
        if by_seat:
            await wire.friends.follow_seat(me.player, msg["race"], msg["seat"])
        else:
            await wire.friends.follow_name(me.player, msg["name"])
    except FriendError as exc:
        raise _refused(exc, "friend_follow") from None
    await _send_list(session, wire, me)


@handler("friend_unfollow")
async def on_friend_unfollow(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friend_unfollow")
    await wire.friends.unfollow(me.player, msg["name"])
    await _send_list(session, wire, me)


@handler("friend_block")
async def on_friend_block(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friend_block")
    try:
        await wire.friends.charge("follow", me.player, session.network)
        await wire.friends.block(me.player, msg["name"])
    except FriendError as exc:
        raise _refused(exc, "friend_block") from None
    await _send_list(session, wire, me)


@handler("friend_unblock")
async def on_friend_unblock(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friend_unblock")
    await wire.friends.unblock(me.player, msg["name"])
    await _send_list(session, wire, me)


@handler("friend_challenge")
async def on_friend_challenge(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friend_challenge")
    await wire.enrol(session, me.player)  # the answer reaches this page too
    try:
        await wire.friends.charge("challenge", me.player, session.network)
        notice = await wire.friends.challenge(me, msg["name"], msg.get("rules", DEFAULT_RULES.value))
    except FriendError as exc:
        raise _refused(exc, "friend_challenge") from None
    session.send(notice)  # the direct answer (with the rid); every page of both also gets it as a notice


@handler("challenge_answer")
async def on_challenge_answer(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "challenge_answer")
    try:
        end = await wire.friends.answer(me, msg["challenge"], msg["accept"])
    except FriendError as exc:
        raise _refused(exc, "challenge_answer") from None
    session.send(end)


@handler("friends_daily")
async def on_friends_daily(session: Session, msg: dict[str, Any]) -> None:
    wire, me = await _me(session, "friends_daily")
    session.send({"t": "friends_daily", **await wire.friends.daily_board(me.player)})


async def startup(ctx: Context) -> None:
    accounts, races = ctx.find(Accounts), ctx.find(RaceWire)
    if accounts is None or races is None:
        raise RuntimeError("friends needs the accounts and races extensions (installed before it)")
    port = RacesPort(races)
    friends = Friends(
        ctx.redis, ctx.settings.friends, AccountsPort(accounts), port, ctx.hub.publish, ctx.clock
    )
    wire = FriendsWire(ctx, friends, port)
    wire.refresher = asyncio.create_task(wire.refresh_forever(), name="golfrace-friends-refresh")
    ctx.provide(wire)


async def shutdown(ctx: Context) -> None:
    wire = ctx.find(FriendsWire)
    if wire is None:
        return
    await end(wire.refresher)
    for session in list(wire.online):  # the connections are closed next: their stamps go now
        with contextlib.suppress(Exception):
            await wire.closed(session)
