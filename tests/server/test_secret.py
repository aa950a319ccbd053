"""The strength check of ``GOLFRACE_SECRET`` (fair play 19.7): what ``serve`` refuses and what it takes."""

from __future__ import annotations

import base64
import secrets

import pytest

from golfrace.http.app import create_app
from golfrace.settings import Settings
from golfrace.settings.secret import HOW, refusal, weakness

RANDOM = {
    "hex31": lambda: secrets.token_hex(31),
    "urlsafe24": lambda: secrets.token_urlsafe(24),
    "hex32": lambda: secrets.token_hex(32),
    "urlsafe32": lambda: secrets.token_urlsafe(32),
    "base64": lambda: base64.b64encode(secrets.token_bytes(32)).decode(),
    "hex64": lambda: secrets.token_hex(64),
}


@pytest.mark.parametrize(
    "secret",
    [
        "changeme",
        "ChangeMe",
        "password",
        "test-secret-not-for-production",  # the test suite's old secret
        "a" * 64,  # long, but one character
        "0123456789abcdef" * 4,  # 64 hex digits, a repeated block
        "abcdefghij" * 8,
        "hex31",  # 62 random hex digits: 248 bits
        "urlsafe24",  # 32 random characters of base64url: 192 bits
        "correct horse battery staple and some more words to make it long enough",  # words: ~2 bits a letter
        "x7Gq2pL9vR4mT8wZ!k",  # a strong password, but far from 256 bits
    ],
)
def test_weak_secrets_are_refused(secret: str) -> None:
    secret = RANDOM.get(secret, lambda: secret)()  # made here: every test worker collects the same ids
    why = weakness(secret)
    assert why is not None
    line = refusal(secret)
    assert line is not None and "\n" not in line and HOW in line and secret not in line


@pytest.mark.parametrize("secret", ["hex32", "urlsafe32", "base64", "hex64"])
def test_strong_secrets_serve(secret: str) -> None:
    secret = RANDOM[secret]()
    assert weakness(secret) is None and refusal(secret) is None


def test_no_secret_is_fine_the_server_makes_one() -> None:
    assert refusal(None) is None


def test_create_app_refuses_a_weak_secret_too(settings: Settings) -> None:
    with pytest.raises(ValueError, match="GOLFRACE_SECRET is too weak"):
        create_app(settings.with_(secret="changeme"))
    create_app(settings)  # the suite's own secret is strong
