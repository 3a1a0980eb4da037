"""Server seals: the store's own mark on every row it writes.

Each event row carries ``principal`` - who appended it as the server authenticated them
(``device:<user>``, ``user:<user>``, ``server:<service>``, ``ingest:<who ran it>``), beside
the client's own ``actor`` - and ``seal``, an HMAC-SHA256 of the event's hash and that
principal under a key derived from ``SEAL_KEY`` (a secret of its own, apart from Django's
``SECRET_KEY`` and the database's login; never in the database). A row added or changed
past the store - by the application's database role, the owner or a superuser, who can
even compute a correct chain hash with the project's own function - has no valid seal:
``verify`` reports it as ``unsealed``, naming the stream, version and position. The Merkle
leaf of an event commits to its seal (:mod:`audit.record.merkle`), so a seal stripped or
replaced under a signed head changes the root. ``SEAL_KEY_FALLBACKS`` keep old seals valid
after a rotation (a store sealed before ``SEAL_KEY`` existed: its ``SECRET_KEY``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings

_SALT = b"audit.event.seal"


@lru_cache(maxsize=8)
def _key(secret: str) -> bytes:
    return hashlib.sha256(_SALT + secret.encode()).digest()


# HMAC's pads (RFC 2104), as the standard library's hmac makes them
_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))


@lru_cache(maxsize=8)
def _keyed(secret: str) -> tuple[Any, Any]:
    """HMAC-SHA256 under the seal's key, keyed once: the inner and the outer hash with the
    key's pads taken in, each copied for a seal. The standard construction, as hmac
    makes it; hashlib's copies skip hmac.HMAC's Python wrapper around each, which a
    copy of a keyed HMAC goes through three times a seal - and ingest seals every line
    (tests: hmac.new's seals)."""
    key = _key(secret).ljust(hashlib.sha256().block_size, b"\0")
    return hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))


def _mac(keyed: tuple[Any, Any], message: bytes) -> str:
    inner, outer = keyed[0].copy(), keyed[1].copy()
    inner.update(message)
    outer.update(inner.digest())
    return outer.hexdigest()


def seal_of(event_hash: str, principal: str, *, secret: str | None = None) -> str:
    return _mac(
        _keyed(secret if secret is not None else settings.SEAL_KEY),
        f"{event_hash}|{principal}".encode(),
    )


def sealer(principal: str, *, secret: str | None = None) -> Callable[[bytes], bytes]:
    """:func:`seal_of` for many events of one principal (an ingest's), as bytes from the
    hash's bytes: the key and the principal's part made once, not once an event."""
    keyed = _keyed(secret if secret is not None else settings.SEAL_KEY)
    tail = f"|{principal}".encode()

    def seal(event_hash: bytes) -> bytes:
        return _mac(keyed, event_hash + tail).encode()

    return seal


def seal_holds(event_hash: str, principal: str | None, seal: str | None) -> bool:
    """Whether ``seal`` was made by this application (its key, or a rotated-out one)."""
    if not seal or principal is None:
        return False
    for secret in (settings.SEAL_KEY, *settings.SEAL_KEY_FALLBACKS):
        if hmac.compare_digest(seal_of(event_hash, principal, secret=secret), seal):
            return True
    return False


# --- the database's own refusal of a row without a seal ----------------------------------
# The database cannot check a seal (the key is not there, by design), but it refuses a row
# that has none: a row inserted past the store - by the application's role, which may
# INSERT - must at least forge one, and ``verify`` names a forged one. PostgreSQL: a CHECK
# constraint, NOT VALID so that rows stored before seals existed stay (verify names them),
# inherited by every partition and beyond the application role's reach (it owns nothing);
# SQLite: a trigger. Migration 0020; ``verify`` checks it is there as shipped.
TABLE = "audit_event"
GUARD = f"{TABLE}_sealed"
_CONDITION = "principal IS NOT NULL AND seal IS NOT NULL AND length(seal) = 64"
GUARD_INSTALL = {
    "postgresql": [f"ALTER TABLE {TABLE} ADD CONSTRAINT {GUARD} CHECK ({_CONDITION}) NOT VALID"],
    "sqlite": [
        (
            f"CREATE TRIGGER {GUARD} BEFORE INSERT ON {TABLE} WHEN NEW.principal IS NULL OR NEW.seal IS NULL "
            f"OR length(NEW.seal) != 64 BEGIN SELECT RAISE(ABORT, '{TABLE}: a row without the store''s seal "
            "is refused'); END"
        )
    ],
}
GUARD_REMOVE = {
    "postgresql": [f"ALTER TABLE {TABLE} DROP CONSTRAINT IF EXISTS {GUARD}"],
    "sqlite": [f"DROP TRIGGER IF EXISTS {GUARD}"],
}


def _squashed(sql: str) -> str:
    """A definition without its spaces, parentheses and casts (PostgreSQL prints its own
    parenthesised form of what it was given)."""
    return re.sub(r"::\w+|[\s()]", "", sql)


def guard_problems(connection: Any) -> list[str]:
    """What is wrong with the refusal of unsealed rows: missing, or not the shipped one."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = %s", [GUARD]
            )
            found = cursor.fetchone()
            shipped = GUARD_INSTALL["sqlite"][0]
        else:
            cursor.execute(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = to_regclass(%s) "
                "AND conname = %s",
                [TABLE, GUARD],
            )
            found = cursor.fetchone()
            shipped = f"CHECK ({_CONDITION}) NOT VALID"
    kind = "trigger" if connection.vendor == "sqlite" else "constraint"
    if found is None:
        return [
            f"{kind} {GUARD} on {TABLE} is missing (rows without the store's seal are not refused)"
        ]
    if _squashed(found[0]) != _squashed(shipped):
        return [
            f"{kind} {GUARD} on {TABLE} is not the shipped one: {' '.join(found[0].split())[:200]}"
        ]
    return []
