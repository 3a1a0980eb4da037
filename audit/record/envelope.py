"""The envelope: an event with its place in its stream and its link in the hash chain.

:class:`Envelope` is the typed value of one event's 13 members (``id``, ``stream``,
``version``, ``position``, ``type``, ``schema_version``, ``occurred_at``,
``recorded_at``, ``actor``, ``source``, ``payload``, ``prev_hash``, ``hash``).

:func:`seal` is the one builder of envelopes: it hashes an event linked to the hash
before it, as :mod:`.chain` defines the hash (and checks a restored event's claimed
hash). :class:`StreamChain` holds one stream's head (its last version and hash) and
seals the next events onto it. The store, the engine's writer and the simulator all
build through them. :meth:`StreamChain.lines` is the fast path for a whole run of
new events written as JSON Lines: the same envelopes, formatted straight into the
bytes :func:`audit.record.jsonl.encode_line` would write (a test holds the two equal),
at a fraction of the cost of building each value first.

Payloads are hashed as given: checking them against the catalogue is the caller's job
(the store does it before it builds a row; the engine and the simulator make valid
ones).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

import msgspec

from .chain import (
    GENESIS_HASH,
    canonical_json,
    document_digest,
    document_tail,
    event_hash,
    format_timestamp,
)
from .events import PayloadError, current_version

# a stream is a table's code (or a server stream such as ``audit.findings``): the pattern
# inside a URL pattern, and anchored (\Z: "$" would let a trailing newline through)
STREAM_REGEX = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
STREAM_PATTERN = re.compile(rf"^{STREAM_REGEX}\Z")
LABEL_MAX = 128
# An actor or a source is an identifier, not text: ASCII letters, digits and . _ : @ / + -,
# starting with a letter or digit. That refuses control characters (a newline or an ANSI
# escape that would forge a log line), format characters (bidi overrides, zero-width
# joiners that make two names look alike) and every non-ASCII confusable by construction.
LABEL_PATTERN = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._:@/+-]{{0,{LABEL_MAX - 1}}}")


def stream_problem(stream: object) -> str | None:
    """What is wrong with ``stream`` as a stream's name (None: nothing) - the store's
    check, and the offline reader's."""
    if not isinstance(stream, str) or not STREAM_PATTERN.match(stream):
        return f"{stream!r} is not a table code (letters, digits, . _ -; at most 64)"
    return None


def label_problem(value: object) -> str | None:
    """What is wrong with ``value`` as an ``actor`` or ``source`` (None: nothing)."""
    if not isinstance(value, str) or not LABEL_PATTERN.fullmatch(value):
        return (
            f"expected an identifier of at most {LABEL_MAX} characters: ASCII letters, digits and . _ : @ / + - "
            "(no spaces, control, format or non-ASCII characters)"
        )
    return None


class Envelope(msgspec.Struct, frozen=True):
    """One event as the record keeps it. ``position`` is the store's global order (None
    where there is none, e.g. a line offered for ingest); every other member is part of
    the hashed document but ``hash`` itself. Timestamps are timezone-aware. Build it
    with keywords; the store's reader alone builds it from a row in field order."""

    id: UUID
    stream: str
    version: int
    type: str
    schema_version: int
    occurred_at: datetime
    recorded_at: datetime
    actor: str
    source: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str
    position: int | None = None

    def computed_hash(self) -> str:
        """The hash this envelope's content gives (equal to ``hash`` unless altered)."""
        return event_hash(
            id=self.id,
            stream=self.stream,
            version=self.version,
            type=self.type,
            schema_version=self.schema_version,
            occurred_at=self.occurred_at,
            recorded_at=self.recorded_at,
            actor=self.actor,
            source=self.source,
            payload=self.payload,
            prev_hash=self.prev_hash,
        )

    def as_dict(self, *, texts: tuple[str, str, str] | None = None) -> dict[str, Any]:
        """The export form: the id and timestamps as the chain writes them as text;
        ``position`` left out when there is none. ``texts``: the id, ``occurred_at`` and
        ``recorded_at`` already written in that form (a line this codec wrote: reading
        them back and writing them again is most of the cost, see
        :func:`audit.record.jsonl.export_form`)."""
        id_text, occurred, recorded = texts or (
            str(self.id),
            format_timestamp(self.occurred_at),
            format_timestamp(self.recorded_at),
        )
        return export_dict(
            id_text,
            self.stream,
            self.version,
            self.type,
            self.schema_version,
            occurred,
            recorded,
            self.actor,
            self.source,
            self.payload,
            self.prev_hash,
            self.hash,
            self.position,
        )


def export_dict(
    id: str,
    stream: str,
    version: int,
    type: str,
    schema_version: int,
    occurred_at: str,
    recorded_at: str,
    actor: str,
    source: str,
    payload: dict[str, Any],
    prev_hash: str,
    hash: str,
    position: int | None,
) -> dict[str, Any]:
    """An envelope's export form from its members, the id and moments as the chain writes
    them (:meth:`Envelope.as_dict`'s, and the offline reader's: one place)."""
    out: dict[str, Any] = {
        "id": id,
        "stream": stream,
        "version": version,
        "type": type,
        "schema_version": schema_version,
        "occurred_at": occurred_at,
        "recorded_at": recorded_at,
        "actor": actor,
        "source": source,
        "payload": payload,
        "prev_hash": prev_hash,
        "hash": hash,
    }
    if position is not None:
        out["position"] = position
    return out


def seal(envelope: Envelope, *, claimed: str | None = None) -> Envelope:
    """The envelope hashed: linked to its ``prev_hash`` at its ``version``, its ``hash``
    computed from its content. A ``claimed`` hash (a restored event's) must be the one
    computed: :class:`PayloadError` on ``hash`` otherwise."""
    digest = envelope.computed_hash()
    check_claimed(claimed, digest)
    return msgspec.structs.replace(envelope, hash=digest)


def check_claimed(claimed: str | None, digest: str) -> None:
    """A restored event's ``claimed`` hash must be the ``digest`` its content gives."""
    if claimed is not None and claimed != digest:
        raise PayloadError("hash", f"does not match the event's content (computed {digest})")


# One new event for :meth:`StreamChain.lines`: (id as lower-case 8-4-4-4-12 text, type,
# payload, occurred_at and recorded_at as format_timestamp text, actor)
LineEvent = tuple[str, str, dict[str, Any], str, str, str]


class StreamChain:
    """One stream's head, and the next events sealed onto it.

    ``version`` and ``head`` are the stream's last version and hash (0 and the genesis
    hash for a new stream). ``hashed=False`` numbers envelopes without linking or hashing
    them (``prev_hash`` stays the genesis hash, ``hash`` is empty): for tests and
    benchmarks of the game that never look at the chain.
    """

    __slots__ = ("_quoted", "_tails", "hashed", "head", "stream", "version")

    def __init__(
        self, stream: str, *, version: int = 0, head: str = GENESIS_HASH, hashed: bool = True
    ) -> None:
        self.stream = stream
        self.version = version
        self.head = head
        self.hashed = hashed
        self._tails: dict[
            str, dict[str, bytes]
        ] = {}  # source -> type -> the document's last members
        self._quoted: dict[str, bytes] = {}

    def seal(
        self,
        *,
        id: UUID,
        type: str,
        schema_version: int,
        occurred_at: datetime,
        recorded_at: datetime,
        actor: str,
        source: str,
        payload: dict[str, Any],
        position: int | None = None,
    ) -> Envelope:
        """The next event of the stream: its version follows the head's, it links to the
        head's hash and is hashed (see :func:`seal`), and it becomes the head."""
        envelope = Envelope(
            id=id,
            stream=self.stream,
            version=self.version + 1,
            position=position,
            type=type,
            schema_version=schema_version,
            occurred_at=occurred_at,
            recorded_at=recorded_at,
            actor=actor,
            source=source,
            payload=payload,
            prev_hash=self.head,
            hash="",
        )
        self.version += 1
        if self.hashed:
            envelope = seal(envelope)
            self.head = envelope.hash
        return envelope

    def lines(self, events: Iterable[LineEvent], *, source: str, position: int) -> list[bytes]:
        """The next events as JSON Lines, each at its type's current schema version,
        positions counting on from ``position``: the bytes ``encode_line(seal(...))``
        gives, newline included (always hashed). Ids and timestamps must already be in
        the chain's text form: they are written as they are."""
        encode = canonical_json
        quote = self._quote
        quoted = self._quoted
        tails = self._tails.get(source)
        if tails is None:
            tails = self._tails[source] = {}
        out: list[bytes] = []
        version = self.version
        prev = self.head.encode()
        for event_id, type, payload, occurred, recorded, actor in events:
            version += 1
            position += 1
            tail = tails.get(type)
            if tail is None:
                tail = tails[type] = document_tail(current_version(type), source, self.stream, type)
            who = quoted.get(actor) or quote(actor)
            ident = event_id.encode()
            when = occurred.encode()
            then = when if recorded is occurred else recorded.encode()
            body = encode(payload)
            # the hashed document and the line, members in RFC 8785 (sorted) order: the
            # line adds "hash" and "position", which sort among the others
            digest = document_digest(who, ident, when, body, prev, then, tail, version)
            out.append(
                b'{"actor":%s,"hash":"%s","id":"%s","occurred_at":"%s","payload":%s,"position":%d,"prev_hash":"%s","recorded_at":"%s",%s%d}\n'
                % (who, digest, ident, when, body, position, prev, then, tail, version)
            )
            prev = digest
        self.version = version
        self.head = prev.decode()
        return out

    def _quote(self, text: str) -> bytes:
        quoted = self._quoted.get(text)
        if quoted is None:
            quoted = self._quoted[text] = canonical_json(text)
        return quoted
