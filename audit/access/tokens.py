"""API tokens, hashed at rest, with an expiry and rotation.

A token is 60 hexadecimal characters from the operating system's random source: a key id
(its first 12) and a secret (240 bits in all). The database keeps the key id, the SHA-256
of the whole text, the user, when it was made and when it expires (``API_TOKEN_DAYS``):
a copy of the table logs no one in. A plain SHA-256 is enough here, unlike a password:
the text is random, so there is nothing to guess from a dictionary.

Checking a token looks its row up by the key id (an index, not a scan of digests) and
compares the digests in constant time. Issuing a token never touches the others, so a
device can be given a new one and switched over before the old one is revoked
(:func:`tokens_revoke`), or before it expires.

A user's live tokens are part of their sealed authority (:mod:`audit.access.authority_seal`):
issuing one (a row saved) and revoking one re-seal it, so a token row written past the
application - a copy of a known digest, an expiry moved, a revocation undone - makes the
person's authority fail its seal, and their every request is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from audit.models import ApiToken
from audit.store.errors import StoreError

from .authority_seal import authority_change

KEY_ID_LENGTH = 12
TOKEN_LENGTH = 60
# how stale "last used" may be: a token used again within this writes nothing, so a
# device's every request is not also an UPDATE
LAST_USED_STEP = timedelta(minutes=1)


class TokenRefused(StoreError):
    """A token that does not log in: unknown, expired, revoked, or its user inactive."""

    http_status = 401
    code = "authentication_failed"


@dataclass(frozen=True, slots=True)
class IssuedToken:
    key_id: str
    text: str  # shown once: only its digest is stored
    expires_at: datetime


def token_digest(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def token_issue(*, user: AbstractBaseUser, now: datetime | None = None) -> IssuedToken:
    """A new token for ``user``, valid for ``API_TOKEN_DAYS``; earlier ones stay valid
    until they expire or are revoked (rotation without a gap)."""
    now = now or datetime.now(UTC)
    expires_at = now + timedelta(days=settings.API_TOKEN_DAYS)
    while True:
        text = secrets.token_hex(TOKEN_LENGTH // 2)
        key_id = text[:KEY_ID_LENGTH]
        # a key id already taken (one chance in 2**48 per token) is drawn again
        with transaction.atomic():
            if ApiToken.objects.filter(key_id=key_id).exists():
                continue
            ApiToken.objects.create(
                key_id=key_id,
                digest=token_digest(text),
                user=user,
                created_at=now,
                expires_at=expires_at,
            )
        return IssuedToken(key_id=key_id, text=text, expires_at=expires_at)


def tokens_revoke(
    *, user: AbstractBaseUser, key_id: str | None = None, now: datetime | None = None
) -> int:
    """Revoke ``user``'s token ``key_id``, or all of the user's tokens; how many were
    still valid. A revoked token stays in the table (who had which token, until when)."""
    now = now or datetime.now(UTC)
    tokens = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    if key_id is not None:
        tokens = tokens.filter(key_id=key_id)
    # a user's live tokens are part of their sealed authority (audit.access.authority_seal)
    with transaction.atomic(), authority_change([user.pk], reason="API token revoked"):
        return tokens.update(revoked_at=now)


def token_user(text: str, *, now: datetime | None = None) -> AbstractBaseUser:
    """The user a token logs in, or :class:`TokenRefused` saying why not."""
    now = now or datetime.now(UTC)
    if len(text) < KEY_ID_LENGTH or not text.isascii():
        raise TokenRefused("Invalid token.")
    token = ApiToken.objects.select_related("user").filter(key_id=text[:KEY_ID_LENGTH]).first()
    # compared even when no row was found, so that the time taken says nothing
    expected = token.digest if token is not None else "0" * 64
    if not hmac.compare_digest(expected, token_digest(text)) or token is None:
        raise TokenRefused("Invalid token.")
    if token.revoked_at is not None:
        raise TokenRefused("Token revoked.")
    if token.expires_at <= now:
        raise TokenRefused("Token expired: ask for a new one (manage.py create_device, api_token).")
    if not token.user.is_active:
        raise TokenRefused("User inactive or deleted.")
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_STEP:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def token_revoke(token: ApiToken, *, now: datetime | None = None) -> bool:
    """Revoke one token (the admin's action); False if it was revoked already."""
    return tokens_revoke(user=token.user, key_id=token.key_id, now=now) > 0
