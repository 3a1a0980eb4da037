"""Every path that hashes an event gives the same bytes: the one builder of the hashed
document (``audit.record.chain.document``) reached from an event's values (the store's
seal, the verifier), from a run of new lines (``StreamChain.lines``) and from a line read
back (``decode_hashed``, in the export form and in any other), against the reference
RFC 8785 implementation of the document the chain's docstring specifies. Pure."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone

import msgspec
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.chain import GENESIS_HASH, format_timestamp
from audit.record.envelope import LABEL_PATTERN, STREAM_REGEX, Envelope, StreamChain, seal
from audit.record.events import current_version, validate_payload
from audit.record.events.fields import TEXT_REFUSED
from audit.record.jsonl import decode_hashed, decode_line, encode_line
from tests.event_examples import EXAMPLES

NORMAL = {name: validate_payload(name, None, payload)[1] for name, payload in EXAMPLES.items()}
_free_text = st.from_regex(rf"\A[^{TEXT_REFUSED}]{{1,30}}\Z")
# a voided round's reason is free text: quotes, backslashes, tabs, newlines, non-ASCII
_payloads = st.sampled_from(sorted(NORMAL)).map(lambda name: (name, NORMAL[name])) | _free_text.map(
    lambda reason: (
        "round.voided",
        validate_payload("round.voided", None, {**EXAMPLES["round.voided"], "reason": reason})[1],
    )
)
_moments = st.datetimes(
    min_value=datetime(1900, 1, 2),
    max_value=datetime(9998, 12, 30),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-7)), timezone(timedelta(hours=5))]),
)
_events = st.fixed_dictionaries(
    {
        "id": st.uuids(),
        "stream": st.from_regex(rf"\A{STREAM_REGEX}\Z"),
        "version": st.integers(1, 2**53 - 1),
        "occurred_at": _moments,
        "recorded_at": _moments,
        "actor": st.from_regex(LABEL_PATTERN, fullmatch=True),
        "source": st.from_regex(LABEL_PATTERN, fullmatch=True),
        "payload": _payloads,
        "prev_hash": st.just(GENESIS_HASH) | st.text("0123456789abcdef", min_size=64, max_size=64),
    }
)


def _reference(envelope: Envelope) -> str:
    """SHA-256 of the hashed document written by the reference implementation."""
    document = {
        name: getattr(envelope, name)
        for name in (
            "stream",
            "version",
            "type",
            "schema_version",
            "actor",
            "source",
            "payload",
            "prev_hash",
        )
    }
    document.update(
        id=str(envelope.id),
        occurred_at=format_timestamp(envelope.occurred_at),
        recorded_at=format_timestamp(envelope.recorded_at),
    )
    return hashlib.sha256(rfc8785.dumps(document)).hexdigest()


@settings(max_examples=200, deadline=None)
@given(_events)
def test_every_path_gives_the_reference_hash(given_event) -> None:
    """seal(), the verifier's computed_hash(), StreamChain.lines and decode_hashed (of the
    line in the export form, and of the same line with its id in capitals and its
    moments at another offset: the plain path) all give the reference's hash."""
    (name, payload), position = given_event.pop("payload"), 17
    fields = {
        **given_event,
        "type": name,
        "schema_version": current_version(name),
        "payload": payload,
    }
    envelope = seal(Envelope(**fields, hash="", position=position))
    expected = _reference(envelope)
    assert envelope.hash == expected
    assert envelope.computed_hash() == expected
    chain = StreamChain(envelope.stream, version=envelope.version - 1, head=envelope.prev_hash)
    [line] = chain.lines(
        [
            (
                str(envelope.id),
                name,
                payload,
                format_timestamp(envelope.occurred_at),
                format_timestamp(envelope.recorded_at),
                envelope.actor,
            )
        ],
        source=envelope.source,
        position=position - 1,
    )
    assert line == encode_line(envelope)
    assert chain.head == expected
    link, _ = decode_hashed(line, 1)
    assert link.computed_hash() == link.hash == expected
    other = json.loads(line)
    other.update(
        id=str(envelope.id).upper(),
        occurred_at=envelope.occurred_at.astimezone(timezone(timedelta(hours=3))).isoformat(),
        recorded_at=envelope.recorded_at.astimezone(
            timezone(timedelta(hours=-2, minutes=-30))
        ).isoformat(),
    )
    text = msgspec.json.encode(other)
    link, _ = decode_hashed(text, 1)
    assert link.computed_hash() == decode_line(text, 1).computed_hash() == expected
