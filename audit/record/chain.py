"""The hash chain: canonical encoding of an event and its SHA-256 link to the previous one.

Encoding (exactly RFC 8785, the JSON Canonicalization Scheme, for the values we allow):

* the hashed document is a JSON object with exactly these members: ``id`` (the UUID in
  lower-case 8-4-4-4-12 form), ``stream``, ``version``, ``type``, ``schema_version``,
  ``occurred_at``, ``recorded_at``, ``actor``, ``source``, ``payload`` (the payload in
  the normal form the catalogue returns, as stored) and ``prev_hash``. ``position`` and
  ``hash`` are not part of it: the position is the store's, and the hash is the result;
* timestamps are UTC strings ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (always six fraction digits);
* members are sorted by key, no insignificant white space, strings UTF-8 with only the
  escapes JSON requires (``"``, ``\\``, control characters as ``\\b \\f \\n \\r \\t`` or
  ``\\u00xx``), no escaping of non-ASCII;
* numbers are integers only (the catalogue refuses floats and integers beyond 2**53 - 1),
  written in plain decimal - so RFC 8785's number formatting never comes into play;
* keys are ASCII (schema field names), so sorting by code point equals RFC 8785's
  sorting by UTF-16 code unit.

Under those restrictions msgspec's JSON encoder with sorted keys produces RFC 8785
output byte for byte (:func:`canonical_json`; so would ``json.dumps(sort_keys=True,
separators=(",", ":"), ensure_ascii=False)``, in Python); ``tests/audit/test_chain.py``
checks it against the reference implementation (``rfc8785``) on generated values.

**The one builder of the hashed document** is :func:`document`: its members, each in
its canonical text, set into the document's fixed member order. Every path that hashes
an event calls it - :func:`hashed_document` and :func:`event_hash` from an event's
values (the store, :func:`.envelope.seal`, the verifier), and, from text they hold
already, the writer of a run of lines (:meth:`.envelope.StreamChain.lines`), the
offline reader (:func:`.jsonl.decode_hashed`) and the store's ingest - so none of them
writes the document itself. ``tests/audit/test_chain.py`` holds :func:`hashed_document`
to ``rfc8785`` of the document's members, and every path to it, on generated events.

``hash = sha256(canonical bytes).hexdigest()`` (64 lower-case hex digits). The first
event of a stream has ``prev_hash`` = :data:`GENESIS_HASH`, 64 zeros; every later event
has the ``hash`` of the event before it in the same stream.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from uuid import UUID

import msgspec

GENESIS_HASH = "0" * 64

# an event id as the normal form writes it (str(UUID)): lower-case hex, 8-4-4-4-12
UUID_TEXT = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

_encoder = msgspec.json.Encoder(order="sorted")


def canonical_json(value: Any) -> bytes:
    """RFC 8785 bytes of ``value`` (dicts, lists, str, int, bool, None only)."""
    return _encoder.encode(value)


@lru_cache(maxsize=8192)
def format_timestamp(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC. Cached: a batch shares its recorded_at,
    and a table's events often share a second."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: timestamps must be timezone-aware")
    if moment.utcoffset():
        moment = moment.astimezone(UTC)
    # isoformat is several times faster than strftime; years before 1000 don't occur
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


# the moments the record can hold: every timestamp is kept in UTC, and a year outside
# these cannot be written as YYYY (or, at the edges, cannot be moved to UTC at all)
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9998, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC; ValueError for a naive one or one outside EARLIEST..LATEST."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: timestamps must be timezone-aware")
    try:
        moved = moment.astimezone(UTC)
    except OverflowError:
        moved = None
    if moved is None or not EARLIEST <= moved <= LATEST:
        raise ValueError(
            f"{moment.isoformat()} is outside the supported range (years 1900 to 9998, UTC)"
        )
    return moved


def parse_timestamp(text: str) -> datetime:
    """Parse an RFC 3339 timestamp that carries an offset (``Z`` or ``+hh:mm``), within
    the supported range (:func:`utc`)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no UTC offset")
    return utc(moment)


# The hashed document as bytes, members in RFC 8785 (sorted) order: actor, id,
# occurred_at, payload, prev_hash, recorded_at, then the tail (document_tail) - the one
# place it is written. Each member goes in as its canonical text, so a caller that holds
# that text already (a line's, the previous event's hash) does not make it again.
_DOCUMENT = b'{"actor":%s,"id":"%s","occurred_at":"%s","payload":%s,"prev_hash":"%s","recorded_at":"%s",%s%d}'


@lru_cache(maxsize=4096)
def document_tail(schema_version: int, source: str, stream: str, type: str) -> bytes:
    """The document's members after ``recorded_at``, up to ``version``'s value: one per
    (schema version, source, stream, type), so it is made once and kept."""
    return b'"schema_version":%d,"source":%s,"stream":%s,"type":%s,"version":' % (
        schema_version,
        canonical_json(source),
        canonical_json(stream),
        canonical_json(type),
    )


def string_text(text: str) -> bytes:
    """A string's canonical text without its quotes (what goes between them)."""
    raw = text.encode()
    # letters and digits only (a hash, a UUID's hex) are their own text: no encoder call
    return raw if raw.isalnum() else _encoder.encode(text)[1:-1]


def document(
    actor: bytes,
    id: bytes,
    occurred_at: bytes,
    payload: bytes,
    prev_hash: bytes,
    recorded_at: bytes,
    tail: bytes,
    version: int,
) -> bytes:
    """The hashed document's canonical bytes from its members in canonical text:
    ``actor`` quoted (:func:`canonical_json`); ``id`` (lower-case 8-4-4-4-12) and the
    timestamps (:func:`format_timestamp`) as the chain writes them; ``payload``
    :func:`canonical_json` of the normal form; ``prev_hash`` :func:`string_text` (a
    hash's 64 hex digits are their own); ``tail`` from :func:`document_tail`."""
    return _DOCUMENT % (actor, id, occurred_at, payload, prev_hash, recorded_at, tail, version)


def document_digest(
    actor: bytes,
    id: bytes,
    occurred_at: bytes,
    payload: bytes,
    prev_hash: bytes,
    recorded_at: bytes,
    tail: bytes,
    version: int,
) -> bytes:
    """The event's hash (64 hex digits, as bytes) of :func:`document`'s bytes (the
    template set here as there: one call less for the hot paths)."""
    return (
        hashlib.sha256(
            _DOCUMENT % (actor, id, occurred_at, payload, prev_hash, recorded_at, tail, version)
        )
        .hexdigest()
        .encode()
    )


def hashed_document(
    *,
    id: UUID,
    stream: str,
    version: int,
    type: str,
    schema_version: int,
    occurred_at: datetime,
    recorded_at: datetime,
    actor: str,
    source: str,
    payload: dict[str, Any],
    prev_hash: str,
) -> bytes:
    """The canonical bytes of an event's hashed document (see the module), from its
    values: :func:`document` of each member written in its canonical text."""
    return document(
        canonical_json(actor),
        string_text(str(id)),
        format_timestamp(occurred_at).encode(),
        canonical_json(payload),
        string_text(prev_hash),
        format_timestamp(recorded_at).encode(),
        document_tail(schema_version, source, stream, type),
        version,
    )


def event_hash(**fields: Any) -> str:
    """SHA-256 of the canonical document of an event (see :func:`hashed_document`)."""
    return hashlib.sha256(hashed_document(**fields)).hexdigest()
