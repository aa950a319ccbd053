"""What identities and objects cost: per-client-IP token buckets in Redis, the client's IP behind trusted
proxies, and the ``Origin`` check of ``/ws`` (docs/fair-play.md).

A bucket per (kind, client network) holds up to ``limit_<kind>_burst`` tokens and gains
``limit_<kind>_per_hour`` an hour; each message of the kind takes one, and a message that finds none is
refused with ``rate_limited`` and ``retry_ms`` (when the next token comes). The buckets live in Redis (one
hash per bucket, ``limit:{<kind>|<network>}``, updated by one Lua script on Redis's clock), so they hold
across server instances; a bucket expires once it would be full again. IPv4 clients are counted per address,
IPv6 clients per /64 (one subscriber's whole network). The kinds:

- ``identity``: ``hello`` without a token (a new player identity);
- ``game``: ``new`` (a solo game);
- ``lobby``: ``race_new`` and ``race_rematch`` (a new race lobby);
- ``race``: ``race_start`` (a race's seats become games);
- ``daily``: ``daily_play`` (a daily-challenge attempt);
- ``hint``: ``hint`` (solver work, also queued and capped per player: ``hint_queue.py``);
- ``sid``: a ``hello`` that gets a new seq space (without a ``sid`` this server made for the player: each
  keeps answers in every game it plays, ``commit.py``);
- ``pool``: ``pool_join`` (a quick-race search: a seeker in the shared pool).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from redis.exceptions import RedisError

from golfrace.store.games import Batch, script_runner
from golfrace.store.keys import limit_bucket
from golfrace.wire.protocol import ProtocolError

if TYPE_CHECKING:
    from golfrace.live.session import Session
    from golfrace.settings import Settings
    from golfrace.store.games import RedisClient


KINDS = ("identity", "game", "lobby", "race", "daily", "hint", "sid", "pool")
MESSAGE_KINDS = {
    "new": "game",
    "race_new": "lobby",
    "race_rematch": "lobby",
    "race_start": "race",
    "daily_play": "daily",
    "hint": "hint",
    "pool_join": "pool",
}
"""Message type → bucket kind (``hello`` without a token is ``identity``, decided in ``kind_of``)."""


TOKEN_BUCKET = """
local now_t = redis.call('TIME')
local now = tonumber(now_t[1]) * 1000 + math.floor(tonumber(now_t[2]) / 1000)
local burst = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * per_ms)
if tokens < 1 then
    return math.ceil((1 - tokens) / per_ms)
end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / per_ms) + 1000)
return 0
"""
"""KEYS[1] the bucket; ARGV burst and tokens per millisecond. Takes a token and returns 0, or returns the
milliseconds until one is there (and changes nothing). The key expires once the bucket would be full."""


def network(ip: str) -> str:
    """The bucket's name for a client address: an IPv4 address itself, an IPv6 address's /64 (an IPv4-mapped
    IPv6 address counts as its IPv4 address); anything unreadable as itself, cut to 64 characters."""
    try:
        addr = ipaddress.ip_address(ip.strip().strip("[]"))
    except ValueError:
        return ip.strip()[:64] or "unknown"
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


def networks(text: str, name: str) -> Networks:
    """The comma-separated networks (or single addresses) of a setting such as ``metrics_allow``; a value
    that is neither raises ``ValueError`` naming the setting ``name``."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"{name}: {part!r} is not an IP address or network") from None
    return tuple(out)


def listed(ip: str, allowed: Networks) -> bool:
    """Whether the address ``ip`` lies in one of ``allowed`` (an IPv4-mapped IPv6 address as its IPv4)."""
    try:
        addr = ipaddress.ip_address(ip.strip().strip("[]"))
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return any(addr.version == net.version and addr in net for net in allowed)


def client_ip(peer: str | None, forwarded_for: Iterable[str], trusted_proxies: int) -> str:
    """The client's address: the peer's, or, behind ``trusted_proxies`` proxies that each append the address
    they got the request from to ``X-Forwarded-For``, the address that many hops back. Entries further left
    were written by the client itself and are never believed."""
    hops = [h.strip() for value in forwarded_for for h in value.split(",") if h.strip()]
    chain = [*hops, peer or "unknown"]
    if trusted_proxies <= 0:
        return chain[-1]
    return chain[max(0, len(chain) - 1 - trusted_proxies)]


def scope_client_ip(scope: dict[str, Any], trusted_proxies: int) -> str:
    """``client_ip`` for an ASGI scope (the peer address and any ``X-Forwarded-For`` headers)."""
    peer = scope.get("client")
    forwarded = [v.decode("latin-1") for k, v in scope.get("headers") or () if k == b"x-forwarded-for"]
    return client_ip(peer[0] if peer else None, forwarded, trusted_proxies)


def origin_allowed(headers: Iterable[tuple[bytes, bytes]], allowed: str) -> bool:
    """Whether a websocket handshake may go on: no ``Origin`` header (not a browser), an origin listed in
    ``allowed`` (comma-separated ``scheme://host[:port]``; ``*`` allows every origin), or, with ``allowed``
    empty, an origin whose host and port are the ``Host`` the request was sent to (the site of the page)."""
    origin = host = None
    for key, value in headers:
        if key == b"origin":
            origin = value.decode("latin-1").strip().lower()
        elif key == b"host":
            host = value.decode("latin-1").strip().lower()
    if origin is None:
        return True
    listed = {o.strip().lower().rstrip("/") for o in allowed.split(",") if o.strip()}
    if listed:
        return "*" in listed or origin.rstrip("/") in listed
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return bool(netloc) and netloc == host


def kind_of(session: Session, msg: dict[str, Any]) -> str | None:
    t = msg.get("t")
    if t == "hello":
        # a hello with an account session is someone (accounts/hello.py charges it if it is no live session)
        new = not msg.get("token") and not msg.get("session") and session.player is None
        return "identity" if new else None
    return MESSAGE_KINDS.get(str(t))


class Limiter:
    """The Redis side of the buckets."""

    def __init__(self, redis: RedisClient, settings: Settings, batch: Batch | None = None) -> None:
        self.redis = redis
        self.settings = settings
        self._script = script_runner(redis, batch, TOKEN_BUCKET)  # through the store's batcher when given

    def bucket(self, kind: str) -> tuple[int, float]:
        """(burst, tokens per hour) of a kind (positive settings; 0 or less would mean no limit)."""
        return (
            int(getattr(self.settings, f"limit_{kind}_burst")),
            float(getattr(self.settings, f"limit_{kind}_per_hour")),
        )

    async def take(self, kind: str, net: str) -> int:
        """Take one token of ``kind`` for the network ``net``: 0, or the milliseconds until one is there."""
        burst, per_hour = self.bucket(kind)
        if burst <= 0 or per_hour <= 0:
            return 0
        key = limit_bucket(kind, net)
        return int(await self._script(keys=[key], args=[burst, repr(per_hour / 3_600_000)]))


async def charge(session: Session, msg: dict[str, Any]) -> None:
    """Before a message is handled: take a token from its kind's bucket, or raise ``rate_limited``."""
    kind = kind_of(session, msg)
    if kind is not None:
        await charge_kind(session, kind, msg.get("seq", msg.get("t")))


async def charge_kind(session: Session, kind: str, ref: Any) -> None:
    """Take a token of ``kind`` for the session's network, or raise ``rate_limited`` (answering ``ref``)."""
    ctx = session.ctx
    try:
        wait = await ctx.limiter.take(kind, session.network)
    except (RedisError, OSError):
        return  # storage away: the handler answers ``unavailable`` (a limit never hides that)
    if wait:
        raise ProtocolError(
            "rate_limited",
            f"too many {kind} requests from your network; retry in {wait / 1000:.1f} s",
            ref=ref,
            kind=kind,
            retry_ms=wait,
        )


GENEROUS = {f"limit_{kind}_{part}": 1_000_000 for kind in KINDS for part in ("burst", "per_hour")}
"""Settings overrides that no test reaches: test suites that share one Redis (and 127.0.0.1) use them; the
limits themselves are tested on servers of their own."""
