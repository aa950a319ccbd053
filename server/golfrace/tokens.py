"""Anonymous player identities: a random public id inside a token signed by the server."""

from __future__ import annotations

import secrets

from itsdangerous import BadSignature, URLSafeSerializer

SALT = "golfrace.player.v1"


class Tokens:
    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeSerializer(secret, salt=SALT)

    def issue(self) -> tuple[str, str]:
        """A new ``(player id, token)``."""
        player = "p" + secrets.token_hex(8)
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
