"""JSON Lines: one envelope per line - the one codec every reader and writer of a file uses.

**Encoding** (:func:`encode_line`): the envelope's export form (see
:meth:`.envelope.Envelope.as_dict`) as RFC 8785 JSON - members sorted by key at every
level, no insignificant white space, UTF-8 without escaping non-ASCII - and a newline.
That is what ``export_events`` writes and the simulator writes.

**Decoding** is strict, and every error names the line and the member, e.g.
``line 12: payload.settlements[0].net: Expected `int`, got `str```
(:class:`LineError`). A line must be one JSON object; a member it does not know is
refused; no value is coerced (``"3"`` is not 3, ``true`` is not 1); timestamps are
RFC 3339 with an offset (``Z`` or ``+hh:mm``; one without is refused); ``id`` is a UUID.

- :func:`decode_fields` reads the members as offered for ingest. Required: ``id``,
  ``stream``, ``type``, ``occurred_at``, ``actor``, ``source``, ``payload`` (an object,
  kept as JSON text until its schema reads it). Optional: ``version``, ``position``,
  ``schema_version`` (whole numbers >= 1), ``recorded_at``, ``prev_hash``, ``hash``;
  ``recorded_at`` and ``hash`` come together or not at all.
- :func:`decode_line` reads a hash-chained envelope: all of the above, and ``version``,
  ``schema_version``, ``recorded_at``, ``prev_hash`` and ``hash`` are required too
  (``position`` stays optional); the payload is decoded into its type's schema at that
  schema version (unknown type or version, unknown, missing or mistyped field refused)
  and kept in the catalogue's normal form, which is what the hash covers. A line that
  lacks a member of the chain raises :class:`NotChained`.

- :func:`decode_hashed` is :func:`decode_line` for a reader that checks the chain and
  folds the export form (the offline replay, the regulator's auditor): what the chain's
  verifier reads of the envelope (:class:`Link`), its hash computed once, and the export
  form. A line in the export form already (one this codec wrote) is parsed once, its id
  and moments checked as text and kept as it writes them; any other line is read by the
  plain decode, so the same lines are refused with the same errors.

Both check the members' forms as the store does (``stream`` a table code, ``actor`` and
``source`` identifiers: :func:`.envelope.stream_problem`, :func:`.envelope.label_problem`);
neither checks the chain itself: :mod:`.verify` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar
from uuid import UUID

import msgspec

from .chain import (
    EARLIEST,
    LATEST,
    UUID_TEXT,
    canonical_json,
    document_digest,
    document_tail,
    format_timestamp,
    string_text,
    utc,
)
from .envelope import Envelope, export_dict, label_problem, stream_problem
from .events import PayloadError, decode_payload_json
from .events.registry import explain

_Aware = Annotated[datetime, msgspec.Meta(tz=True)]
_Count = Annotated[int, msgspec.Meta(ge=1)]
_Text = TypeVar("_Text", bound=str | bytes)


class LineError(ValueError):
    """A line that is not an envelope. ``line`` is its number (None when unknown),
    ``field`` the member (a dotted path such as ``payload.settlements[0].net``, or
    ``line`` for the line as a whole)."""

    def __init__(self, line: int | None, field: str, message: str) -> None:
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    @property
    def reason(self) -> str:
        """The error without its line number: ``field: message``."""
        return f"{self.field}: {self.message}"

    def __str__(self) -> str:
        return self.reason if self.line is None else f"line {self.line}: {self.reason}"


class NotChained(LineError):
    """A line without the members of the hash chain (it may be fine for ingest)."""


class Fields(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A line's members as offered; the payload still JSON text."""

    id: UUID
    stream: str
    type: str
    occurred_at: _Aware
    actor: str
    source: str
    payload: msgspec.Raw
    version: _Count | None = None
    position: _Count | None = None
    schema_version: _Count | None = None
    recorded_at: _Aware | None = None
    prev_hash: str | None = None
    hash: str | None = None


_decode_fields = msgspec.json.Decoder(Fields).decode
_CHAINED = ("version", "schema_version", "recorded_at", "prev_hash", "hash")


# :class:`Fields` with the id and the moments as the line writes them (exported_fields)
_AS_TEXT: dict[str, Any] = {"id": str, "occurred_at": str, "recorded_at": str | None}
_FieldTexts = msgspec.defstruct(
    "_FieldTexts",
    [
        (f.name, _AS_TEXT.get(f.name, f.type))
        if f.required
        else (f.name, _AS_TEXT.get(f.name, f.type), f.default)
        for f in msgspec.structs.fields(Fields)
    ],
    frozen=True,
    forbid_unknown_fields=True,
)
# (Any: a struct made at run time has no members a type checker knows)
_decode_field_texts: Callable[[str | bytes], Any] = msgspec.json.Decoder(_FieldTexts).decode


def exported_fields(text: str | bytes) -> tuple[Fields, tuple[str, str, str | None]] | None:
    """:func:`decode_fields` of a line whose id and moments are in the export form (a
    line this codec wrote, or the simulator), with their text (:func:`member_texts`'s):
    one parse of the line where the two took two, the id made a UUID and the moments
    datetimes from the text. None for any other line, or one either would refuse:
    decode_fields reads it then, and names what is wrong as it always has."""
    try:
        fields = _decode_field_texts(text)
        event_id = _to_uuid(fields.id, UUID)
    except (msgspec.MsgspecError, RecursionError):
        return None
    id_text, occurred_text, recorded_text = fields.id, fields.occurred_at, fields.recorded_at
    # a UUID read from 36 characters is 8-4-4-4-12 hex: in lower case, the export form
    # (all digits, no letter to be lower: the long way, as for upper case)
    if len(id_text) != 36 or not id_text.islower():
        return None
    occurred = _exported_value(occurred_text)
    if occurred is None:
        return None
    recorded = None
    if recorded_text == occurred_text:  # (a simulator's lines, recorded as they occur)
        recorded = occurred
    elif recorded_text is not None:
        recorded = _recorded_value(recorded_text)
        if recorded is None:
            return None
    stream, actor, source = fields.stream, fields.actor, fields.source
    if (
        not (stream in _GOOD_STREAMS and actor in _GOOD_LABELS and source in _GOOD_LABELS)
        and _members_problem(stream, actor, source) is not None
    ):
        return None
    if (recorded is None) != (fields.hash is None):
        return None
    return Fields(
        id=event_id,
        stream=stream,
        type=fields.type,
        occurred_at=occurred,
        actor=actor,
        source=source,
        payload=fields.payload,
        version=fields.version,
        position=fields.position,
        schema_version=fields.schema_version,
        recorded_at=recorded,
        prev_hash=fields.prev_hash,
        hash=fields.hash,
    ), (id_text, occurred_text, recorded_text)


_to_uuid = msgspec.convert


def decode_fields(text: str | bytes, line: int | None = None) -> Fields:
    """The members of a line offered for ingest (see the module's docstring)."""
    try:
        fields = _decode_fields(text)
    except msgspec.ValidationError as error:
        explained = explain(error)  # it names paths from "payload"; here the root is the line
        raise LineError(
            line,
            explained.field.removeprefix("payload").removeprefix(".") or "line",
            explained.message,
        ) from None
    except msgspec.DecodeError as error:
        raise LineError(line, "line", f"not JSON: {error}") from None
    except RecursionError:
        raise LineError(
            line, "line", "not JSON this reader can follow: nested too deeply"
        ) from None
    wrong = _members_problem(fields.stream, fields.actor, fields.source)
    if wrong is not None:
        raise LineError(line, *wrong)
    if (fields.recorded_at is None) != (fields.hash is None):
        raise LineError(
            line,
            "hash" if fields.hash is None else "recorded_at",
            "recorded_at and hash come together",
        )
    for name, moment in (("occurred_at", fields.occurred_at), ("recorded_at", fields.recorded_at)):
        # a moment read with "Z" is in UTC already: only its range is left to check
        if moment is not None and not (moment.tzinfo is UTC and EARLIEST <= moment <= LATEST):
            try:
                utc(moment)
            except ValueError as error:
                raise LineError(line, name, str(error)) from None
    return fields


def _members_problem(stream: str, actor: str, source: str) -> tuple[str, str] | None:
    """(member, what is wrong) of the first of a line's stream, actor and source the store
    would refuse: an offline replay must not read an event the store would never have
    taken. A table's lines share a few streams, actors and sources: one found good is not
    looked at again (the same checks, in the same order, for one not seen yet)."""
    if stream not in _GOOD_STREAMS:
        problem = stream_problem(stream)
        if problem is not None:
            return "stream", problem
        _remember(_GOOD_STREAMS, stream)
    for name, value in (("actor", actor), ("source", source)):
        if value not in _GOOD_LABELS:
            problem = label_problem(value)
            if problem is not None:
                return name, problem
            _remember(_GOOD_LABELS, value)
    return None


_GOOD_STREAMS: set[str] = set()
_GOOD_LABELS: set[str] = set()
_QUOTED: dict[str, bytes] = {}  # an actor -> its canonical JSON


def _remembered(known: dict[str, bytes], key: str, value: bytes) -> bytes:
    if len(known) >= 4096:  # a file of ever new names costs the encoding, not memory
        known.clear()
    known[key] = value
    return value


def _remember(good: set[str], value: str) -> None:
    if len(good) >= 4096:  # a file of ever new names costs the checks, not memory
        good.clear()
    good.add(value)


def checked_payload(fields: Fields, line: int | None = None) -> tuple[int, dict[str, Any]]:
    """(schema version, payload in normal form): the line's payload decoded into its
    type's schema (the current version when the line names none)."""
    schema_version, payload, _ = encoded_payload(fields, line)
    return schema_version, payload


def encoded_payload(fields: Fields, line: int | None = None) -> tuple[int, dict[str, Any], bytes]:
    """:func:`checked_payload`, and the payload's canonical bytes, which the event's hash
    covers (:func:`.chain.canonical_json` of the normal form)."""
    try:
        return decode_payload_json(fields.type, fields.schema_version, fields.payload)
    except PayloadError as error:
        raise LineError(line, error.field, error.message) from None


def _chained(text: str | bytes, line: int | None) -> tuple[Fields, int, dict[str, Any], bytes]:
    """(the line's members, its schema version, its payload in normal form and that
    form's canonical bytes) of a hash-chained line."""
    fields = decode_fields(text, line)
    if (
        fields.version is None
        or fields.schema_version is None
        or fields.recorded_at is None
        or fields.prev_hash is None
        or fields.hash is None
    ):
        missing = [name for name in _CHAINED if getattr(fields, name) is None]
        raise NotChained(
            line,
            missing[0],
            f"missing: the line is not hash-chained (that needs {', '.join(_CHAINED)})",
        )
    return (fields, *encoded_payload(fields, line))


def decode_line(text: str | bytes, line: int | None = None) -> Envelope:
    """A hash-chained envelope (see the module's docstring)."""
    fields, schema_version, payload, _ = _chained(text, line)
    assert fields.version is not None and fields.recorded_at is not None  # checked above
    assert fields.prev_hash is not None and fields.hash is not None
    return Envelope(
        id=fields.id,
        stream=fields.stream,
        version=fields.version,
        position=fields.position,
        type=fields.type,
        schema_version=schema_version,
        occurred_at=fields.occurred_at,
        recorded_at=fields.recorded_at,
        actor=fields.actor,
        source=fields.source,
        payload=payload,
        prev_hash=fields.prev_hash,
        hash=fields.hash,
    )


class _Texts(msgspec.Struct):
    id: str
    occurred_at: str
    recorded_at: str | None = None


_decode_texts = msgspec.json.Decoder(_Texts).decode


def _uuid_text(text: str) -> bool:
    """Whether ``text`` is a UUID as the export form writes it, lower-case 8-4-4-4-12
    (msgspec also reads 32 digits without dashes, and upper case). The whole check, for a
    text no decoder has read as a UUID as well as one it has: one match in C (a strip of
    the digits, a count of the dashes and their places took twice as long)."""
    return _UUID_TEXT(text) is not None


_UUID_TEXT = UUID_TEXT.fullmatch


def _export_moment(text: str) -> bool:
    """Whether a moment msgspec read as RFC 3339 is written as the export form writes it,
    ``YYYY-MM-DDTHH:MM:SS.ffffffZ``: RFC 3339's fixed fields leave only the separator's
    case, the fraction's length and the offset free, and these three places pin them."""
    return len(text) == 27 and text[10] == "T" and text[19] == "." and text[26] == "Z"


def member_texts(text: str | bytes) -> tuple[str | None, str | None, str | None]:
    """The line's ``id``, ``occurred_at`` and ``recorded_at`` as it writes them, each
    where that is the export form's (None where it is not, or the member is absent):
    text the line already holds, which a writer of the chain's text need not make again.
    Only for a line :func:`decode_fields` read: the places the export form pins are all
    that is left to look at (tests hold this to the patterns the form is written in)."""
    texts = _decode_texts(text)
    recorded = texts.recorded_at
    return (
        texts.id if _uuid_text(texts.id) else None,
        texts.occurred_at if _export_moment(texts.occurred_at) else None,
        recorded if recorded is not None and _export_moment(recorded) else None,
    )


def _texts(text: str | bytes) -> tuple[str, str, str] | None:
    """:func:`member_texts` where all three are in the export form."""
    id_text, occurred, recorded = member_texts(text)
    if id_text is None or occurred is None or recorded is None:
        return None
    return id_text, occurred, recorded


def export_form(envelope: Envelope, text: str | bytes) -> dict[str, Any]:
    """``envelope.as_dict()`` of the envelope :func:`decode_line` read from ``text``,
    made faster: the id and timestamps are the line's own text where it is in the
    export form already (a line this codec wrote), instead of being written again
    (writing them is most of the cost of ``as_dict``)."""
    return envelope.as_dict(texts=_texts(text))


class Link(msgspec.Struct, frozen=True):
    """What the chain's verifier reads of a line :func:`decode_hashed` decoded: the
    envelope's members but its moments, its id as the export form writes it, and the
    hash computed once from its content (:class:`.verify.Chained`)."""

    id: str
    stream: str
    version: int
    position: int | None
    type: str
    schema_version: int
    payload: dict[str, Any]
    prev_hash: str
    hash: str
    digest: str

    def computed_hash(self) -> str:
        return self.digest


def _exported_moment(text: str) -> bool:
    """Whether ``text`` is a moment written as the export form writes it
    (``YYYY-MM-DDTHH:MM:SS.ffffffZ``, ASCII digits) that the plain decode reads, within
    the record's range (:data:`.chain.EARLIEST` .. :data:`.chain.LATEST`). Python's
    ``fromisoformat`` reads more forms than RFC 3339 (week dates, no separators): the
    places of every separator are pinned first (tests hold this to the plain decode)."""
    return _exported_value(text) is not None


def _exported_value(text: str) -> datetime | None:
    """The moment ``text`` writes where :func:`_exported_moment` holds (in UTC, as the
    plain decode reads it), None otherwise."""
    if not (
        _export_moment(text)
        and text.isascii()
        and text[4] == text[7] == "-"
        and text[13] == text[16] == ":"
    ):
        return None
    try:
        moment = _from_iso(text)
    except ValueError:
        return None
    return moment if EARLIEST <= moment <= LATEST else None


_from_iso = datetime.fromisoformat


def _recorded_value(text: str) -> datetime | None:
    """:func:`_exported_value` of a ``recorded_at``, remembered when good: a batch of
    events shares one."""
    moment = _RECORDED.get(text)
    if moment is None:
        moment = _exported_value(text)
        if moment is not None:
            if len(_RECORDED) >= 4096:  # a file of ever new moments costs the checks, not memory
                _RECORDED.clear()
            _RECORDED[text] = moment
    return moment


_RECORDED: dict[str, datetime] = {}


def _fast(text: str | bytes, line: int | None) -> tuple[Link, dict[str, Any]] | None:
    """:func:`decode_hashed` of a line in the export form (a line this codec wrote): one
    parse, its id and moments checked as text and kept as it writes them. None where the
    line is in another form, or any member would be refused: the plain decode reads it
    then, and names what is wrong as it always has."""
    try:
        fields = _decode_field_texts(text)
    except (msgspec.MsgspecError, RecursionError):
        return None
    id_text, occurred, recorded = fields.id, fields.occurred_at, fields.recorded_at
    # a line without the chain's members: the plain decode names the one missing
    if (
        recorded is None
        or fields.version is None
        or fields.schema_version is None
        or fields.prev_hash is None
        or fields.hash is None
    ):
        return None
    if (
        _UUID_TEXT(id_text) is None
        or _recorded_value(recorded) is None
        or _exported_value(occurred) is None
    ):
        return None
    stream, actor, source = fields.stream, fields.actor, fields.source
    # the sets _members_problem asks first, asked here before a call: nearly every line's
    if (
        not (stream in _GOOD_STREAMS and actor in _GOOD_LABELS and source in _GOOD_LABELS)
        and _members_problem(stream, actor, source) is not None
    ):
        return None
    try:
        schema_version, payload, encoded = decode_payload_json(
            fields.type, fields.schema_version, fields.payload
        )
    except PayloadError as error:
        raise LineError(line, error.field, error.message) from None
    return _hashed(
        id_text,
        stream,
        fields.version,
        fields.type,
        schema_version,
        occurred,
        recorded,
        actor,
        source,
        payload,
        encoded,
        fields.prev_hash,
        fields.hash,
        fields.position,
    )


def _hashed(
    id_text: str,
    stream: str,
    version: int,
    type_: str,
    schema_version: int,
    occurred: str,
    recorded: str,
    actor: str,
    source: str,
    payload: dict[str, Any],
    encoded: bytes,
    prev_hash: str,
    stored: str,
    position: int | None,
) -> tuple[Link, dict[str, Any]]:
    # the payload's canonical bytes go in as they are: encoded once, by its check; the id
    # and the moments are in the chain's text already (checked, or written by it)
    who = _QUOTED.get(actor)
    if who is None:
        who = _remembered(_QUOTED, actor, canonical_json(actor))
    digest = document_digest(
        who,
        id_text.encode(),
        occurred.encode(),
        encoded,
        string_text(prev_hash),
        recorded.encode(),
        document_tail(schema_version, source, stream, type_),
        version,
    ).decode()
    event = export_dict(
        id_text,
        stream,
        version,
        type_,
        schema_version,
        occurred,
        recorded,
        actor,
        source,
        payload,
        prev_hash,
        stored,
        position,
    )
    return Link(
        id_text,
        stream,
        version,
        position,
        type_,
        schema_version,
        payload,
        prev_hash,
        stored,
        digest,
    ), event


def decode_hashed(text: str | bytes, line: int | None = None) -> tuple[Link, dict[str, Any]]:
    """(the :class:`Link` of :func:`decode_line`'s envelope, its hash computed; its
    export form), for a reader that checks the chain and folds the export form. The same
    lines are refused, with the same errors, as :func:`decode_line` refuses; the hashed
    document is the export form without ``hash`` and ``position`` (:mod:`.chain`), so the
    id and timestamps are made text once for both, or not at all where the line writes
    them in the export form (a line this codec wrote: one parse of it, then). The export
    form's members are in ``as_dict``'s order (a test holds the two equal)."""
    done = _fast(text, line)
    if done is not None:
        return done
    fields, schema_version, payload, encoded = _chained(text, line)
    assert fields.version is not None and fields.recorded_at is not None  # checked above
    assert fields.prev_hash is not None and fields.hash is not None
    texts = _texts(text) or (
        str(fields.id),
        format_timestamp(fields.occurred_at),
        format_timestamp(fields.recorded_at),
    )
    return _hashed(
        texts[0],
        fields.stream,
        fields.version,
        fields.type,
        schema_version,
        texts[1],
        texts[2],
        fields.actor,
        fields.source,
        payload,
        encoded,
        fields.prev_hash,
        fields.hash,
        fields.position,
    )


def encode_line(envelope: Envelope) -> bytes:
    """The envelope as one line of the export format, newline included."""
    return canonical_json(envelope.as_dict()) + b"\n"


def numbered(lines: Iterable[_Text]) -> Iterator[tuple[int, _Text]]:
    """(line number, text) of every line that is not blank, numbered from 1."""
    for number, text in enumerate(lines, start=1):
        # (not ``text.strip()``: that copies each line to drop its newline)
        if text and not text.isspace():
            yield number, text


def decode_lines(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Envelope]]:
    """(line number, envelope) of every line that is not blank; :class:`LineError` at
    the first that is not an envelope."""
    for number, text in numbered(lines):
        yield number, decode_line(text, number)


class _StreamOnly(msgspec.Struct):
    stream: str | None = None


_decode_stream = msgspec.json.Decoder(_StreamOnly).decode


def stream_of(text: str | bytes) -> str | None:
    """The ``stream`` of a line that is not an envelope, if it has a readable one."""
    try:
        return _decode_stream(text).stream
    except (msgspec.MsgspecError, RecursionError):
        return None


_POSITION = b',"position":'
_AFTER_POSITION = b',"prev_hash":"'


def with_position(line: bytes, position: int) -> bytes:
    """An encoded line with another ``position`` (files joined from parts). The
    envelope's ``position`` is the member just before its ``prev_hash``, the last
    member with that name in the line: the payload comes before both."""
    end = line.rindex(_AFTER_POSITION)
    start = line.rindex(_POSITION, 0, end)
    return b"%s%s%d%s" % (line[:start], _POSITION, position, line[end:])
