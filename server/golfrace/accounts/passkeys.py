"""Passkeys through the ``webauthn`` package: the options a browser needs and the checks of its answers.

Relying party: the id is the host the page was served from (``AccountSettings``-free: the request's
``Host``, or the host of ``GOLFRACE_ACCOUNT_PUBLIC_ORIGIN`` behind a proxy); the origin of every answer must
be that page's origin. Passkeys are discoverable (resident) and user-verified; the user handle is the player
id, so signing in needs no username. Attestation is not asked for (``none``): any authenticator will do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .errors import AccountError

TIMEOUT_MS = 120_000


@dataclass(frozen=True, slots=True)
class Party:
    """Who we are to the browser: relying-party id and name, and the page origin answers must come from."""

    id: str
    name: str
    origin: str


def registration_options(
    party: Party, player: str, username: str, display: str, exclude: list[str]
) -> tuple[dict[str, Any], str]:
    """(options for ``navigator.credentials.create`` as JSON-ready dict, the challenge in base64url)."""
    options = generate_registration_options(
        rp_id=party.id,
        rp_name=party.name,
        user_id=player.encode(),
        user_name=username,
        user_display_name=display or username,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            require_resident_key=True,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in exclude],
    )
    return json.loads(options_to_json(options)), bytes_to_base64url(options.challenge)


def authentication_options(party: Party, allow: list[str] | None = None) -> tuple[dict[str, Any], str]:
    """Options for ``navigator.credentials.get``: any passkey of this site (sign-in), or only the credential
    ids in ``allow`` (base64url; a signed-in account confirming itself)."""
    options = generate_authentication_options(
        rp_id=party.id,
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.REQUIRED,
        allow_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in allow or []],
    )
    return json.loads(options_to_json(options)), bytes_to_base64url(options.challenge)


@dataclass(frozen=True, slots=True)
class NewPasskey:
    credential_id: str
    public_key: str
    sign_count: int


def verify_registration(party: Party, credential: Any, challenge: str) -> NewPasskey:
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=party.id,
            expected_origin=party.origin,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise AccountError("bad_passkey", f"the passkey could not be checked: {type(exc).__name__}") from None
    return NewPasskey(
        bytes_to_base64url(verified.credential_id),
        bytes_to_base64url(verified.credential_public_key),
        verified.sign_count,
    )


def claimed_user(credential: Any) -> tuple[str, str]:
    """(player id from the user handle, credential id) of a sign-in answer, before it is verified."""
    try:
        response = credential["response"]
        handle = base64url_to_bytes(response["userHandle"]).decode("ascii")
        raw_id = credential["rawId"]
        base64url_to_bytes(raw_id)
    except (TypeError, KeyError, ValueError, UnicodeDecodeError, AttributeError):
        raise AccountError("bad_passkey", "a sign-in answer names its user and credential") from None
    if not isinstance(raw_id, str):
        raise AccountError("bad_passkey", "rawId is base64url text")
    return handle, raw_id


def verify_authentication(
    party: Party, credential: Any, challenge: str, public_key: str, sign_count: int
) -> int:
    """The new signature count of a valid sign-in answer, else ``bad_passkey``."""
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=party.id,
            expected_origin=party.origin,
            credential_public_key=base64url_to_bytes(public_key),
            credential_current_sign_count=sign_count,
            require_user_verification=True,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise AccountError("bad_passkey", f"the passkey could not be checked: {type(exc).__name__}") from None
    return int(verified.new_sign_count)
