"""The canonical encoding is RFC 8785 for every value the catalogue admits."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta, timezone

import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.chain import (
    GENESIS_HASH,
    canonical_json,
    event_hash,
    format_timestamp,
    hashed_document,
    parse_timestamp,
)

MAX = 2**53 - 1
keys = st.text(alphabet=st.characters(codec="ascii", exclude_categories=("Cs",)), max_size=8)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-MAX, MAX)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_canonical_json_matches_the_rfc8785_reference(value):
    """Byte for byte the reference implementation's output, control characters and
    non-ASCII text included."""
    assert canonical_json(value) == rfc8785.dumps(value)


def test_known_vector():
    assert (
        canonical_json({"b": [1, True, None], "a": "é\n\u001f"})
        == '{"a":"é\\n\\u001f","b":[1,true,null]}'.encode()
    )


def test_timestamps_are_utc_with_six_fraction_digits():
    moment = datetime(2026, 11, 29, 21, 30, 5, 120, tzinfo=timezone(timedelta(hours=1)))
    assert format_timestamp(moment) == "2026-11-29T20:30:05.000120Z"
    assert parse_timestamp("2026-11-29T20:30:05.000120Z") == moment


def test_event_hash_is_sha256_of_the_documented_document():
    fields = {
        "id": uuid.UUID(int=1),
        "stream": "T1",
        "version": 1,
        "type": "round.started",
        "schema_version": 1,
        "occurred_at": datetime(2026, 1, 1, tzinfo=UTC),
        "recorded_at": datetime(2026, 1, 1, 0, 0, 1, tzinfo=UTC),
        "actor": "dealer:D1",
        "source": "test",
        "payload": {"round": 1, "shoe": "S1"},
        "prev_hash": GENESIS_HASH,
    }
    document = (
        '{"actor":"dealer:D1","id":"00000000-0000-0000-0000-000000000001",'
        '"occurred_at":"2026-01-01T00:00:00.000000Z","payload":{"round":1,"shoe":"S1"},'
        f'"prev_hash":"{GENESIS_HASH}","recorded_at":"2026-01-01T00:00:01.000000Z",'
        '"schema_version":1,"source":"test","stream":"T1","type":"round.started","version":1}'
    )
    assert hashed_document(**fields) == document.encode()
    assert event_hash(**fields) == hashlib.sha256(document.encode()).hexdigest()
    assert GENESIS_HASH == "0" * 64


def _reference(fields: dict) -> bytes:
    """The hashed document as the module's docstring specifies it, written by the
    reference RFC 8785 implementation: its members, the id and moments as text."""
    return rfc8785.dumps(
        {
            **fields,
            "id": str(fields["id"]),
            "occurred_at": format_timestamp(fields["occurred_at"]),
            "recorded_at": format_timestamp(fields["recorded_at"]),
        }
    )


_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
_moments = st.datetimes(
    min_value=datetime(1900, 1, 2),
    max_value=datetime(9998, 12, 30),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-7)), timezone(timedelta(hours=5))]),
)
_events = st.fixed_dictionaries(
    {
        "id": st.uuids(),
        "stream": _text,
        "version": st.integers(1, MAX),
        "type": _text,
        "schema_version": st.integers(1, MAX),
        "occurred_at": _moments,
        "recorded_at": _moments,
        "actor": _text,
        "source": _text,
        "payload": st.dictionaries(keys, values, max_size=4),
        "prev_hash": _text | st.just(GENESIS_HASH),
    }
)


@settings(max_examples=300, deadline=None)
@given(_events)
def test_the_one_builder_writes_the_reference_bytes_of_the_document(fields):
    """For any members (quotes, backslashes, control and non-ASCII characters in every
    string; any payload), the builder's bytes are the reference implementation's, and
    the hash is their SHA-256."""
    expected = _reference(fields)
    assert hashed_document(**fields) == expected
    assert event_hash(**fields) == hashlib.sha256(expected).hexdigest()
