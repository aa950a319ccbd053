"""Anonymous player identities: a random public id inside a token signed by the server; and seq spaces
(``sid``): a random part and its signature for the player, so that only the server makes new ones (each
costs a token of the network's ``sid`` bucket, ``limits.py``) and a client can only come back to its own."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from itsdangerous import BadSignature, URLSafeSerializer

from golfrace.wire.ids import new_player_id

SALT = "golfrace.player.v1"
SID_SALT = b"golfrace.sid.v1"


class Tokens:
    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeSerializer(secret, salt=SALT)
        self._sid_key = hmac.new(secret.encode(), SID_SALT, hashlib.sha256).digest()

    def new_sid(self, player: str) -> str:
        """A new seq space of ``player``: 12 random hex digits, ``-``, 16 of their signature (29 characters,
        within ``messages.SID``)."""
        part = secrets.token_hex(6)
        return f"{part}-{self._sid_mac(player, part)}"

    def sid_ok(self, player: str, sid: str) -> bool:
        """Whether ``sid`` is a seq space this server made for ``player``."""
        part, _, mac = sid.partition("-")
        return bool(part) and hmac.compare_digest(mac, self._sid_mac(player, part))

    def _sid_mac(self, player: str, part: str) -> str:
        return hmac.new(self._sid_key, f"{player}/{part}".encode(), hashlib.sha256).hexdigest()[:16]

    def issue(self) -> tuple[str, str]:
        """A new ``(player id, token)``."""
        player = new_player_id()
        return player, self.sign(player)

    def sign(self, player: str) -> str:
        return str(self._serializer.dumps({"p": player}))

    def verify(self, token: str) -> str | None:
        """The player id a token carries, or None when this server did not sign it."""
        try:
            data = self._serializer.loads(token)
        except BadSignature:
            return None
        player = data.get("p") if isinstance(data, dict) else None
        return player if isinstance(player, str) and player else None
