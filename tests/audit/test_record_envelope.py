"""The one envelope builder (``audit.record.envelope``) and the one JSON Lines codec
(``audit.record.jsonl``): pure, no database."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.chain import GENESIS_HASH, event_hash, format_timestamp
from audit.record.envelope import Envelope, StreamChain, seal
from audit.record.events import PayloadError, current_version, validate_payload
from audit.record.jsonl import (
    LineError,
    NotChained,
    decode_fields,
    decode_line,
    decode_lines,
    encode_line,
    with_position,
)
from tests.event_examples import EXAMPLES

T0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
NORMAL = {name: validate_payload(name, None, payload)[1] for name, payload in EXAMPLES.items()}


def _chain(n: int = 5, stream: str = "T1", types: list[str] | None = None) -> list[Envelope]:
    """``n`` envelopes of one stream, of ``types`` in turn (default: every type)."""
    chain = StreamChain(stream)
    types = types or sorted(NORMAL)
    return [
        chain.seal(
            id=uuid.uuid5(uuid.NAMESPACE_URL, f"{stream}/{k}"),
            type=types[k % len(types)],
            schema_version=current_version(types[k % len(types)]),
            occurred_at=T0 + timedelta(seconds=k),
            recorded_at=T0 + timedelta(seconds=k, microseconds=7),
            actor="dealer:D1",
            source="test",
            payload=NORMAL[types[k % len(types)]],
            position=10 + k,
        )
        for k in range(n)
    ]


def test_a_stream_chain_numbers_links_and_hashes_as_the_chain_defines() -> None:
    """Versions run 1, 2, 3; the first links to the genesis hash, every later one to the
    hash before it; each hash is chain.event_hash of its content."""
    envelopes = _chain(4)
    assert [e.version for e in envelopes] == [1, 2, 3, 4]
    assert [e.prev_hash for e in envelopes] == [GENESIS_HASH] + [e.hash for e in envelopes[:-1]]
    for e in envelopes:
        assert e.hash == event_hash(
            id=e.id,
            stream=e.stream,
            version=e.version,
            type=e.type,
            schema_version=e.schema_version,
            occurred_at=e.occurred_at,
            recorded_at=e.recorded_at,
            actor=e.actor,
            source=e.source,
            payload=e.payload,
            prev_hash=e.prev_hash,
        )
        assert e.computed_hash() == e.hash


def test_a_restored_event_whose_claimed_hash_differs_is_refused() -> None:
    """seal() with a claimed hash that is not the computed one raises on ``hash``."""
    first = _chain(1)[0]
    unsealed = msgspec.structs.replace(first, hash="")
    assert seal(unsealed) == seal(unsealed, claimed=first.hash) == first
    with pytest.raises(PayloadError) as caught:
        seal(unsealed, claimed="f" * 64)
    assert caught.value.field == "hash" and first.hash in caught.value.message


def test_a_line_round_trips_through_the_codec() -> None:
    """encode_line writes sorted members without spaces; decode_line gives the same
    envelope back."""
    for envelope in _chain(6):
        line = encode_line(envelope)
        assert line.endswith(b"\n") and b": " not in line and b", " not in line
        assert list(json.loads(line)) == sorted(json.loads(line))
        assert decode_line(line, 1) == envelope


_label = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    stream=_label,
    actor=_label,
    source=_label,
    types=st.lists(st.sampled_from(sorted(NORMAL)), min_size=1, max_size=6),
    start=st.datetimes(
        min_value=datetime(1970, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
    ),
    ids=st.lists(st.uuids(), min_size=6, max_size=6, unique=True),
    position=st.integers(0, 10**6),
)
def test_the_fast_path_writes_the_bytes_of_the_one_builder(
    stream, actor, source, types, start, ids, position
) -> None:
    """StreamChain.lines gives, byte for byte, encode_line of what seal() builds - for any
    labels (quotes, backslashes, non-ASCII) - and leaves the same head."""
    fast, slow = (
        StreamChain(stream, version=3, head="a" * 64),
        StreamChain(stream, version=3, head="a" * 64),
    )
    events = []
    for k, name in enumerate(types):
        occurred, recorded = (
            start + timedelta(microseconds=k),
            start + timedelta(seconds=1, microseconds=k),
        )
        events.append(
            (
                str(ids[k]),
                name,
                NORMAL[name],
                format_timestamp(occurred),
                format_timestamp(recorded),
                actor,
            )
        )
    lines = fast.lines(events, source=source, position=position)
    expected = [
        encode_line(
            slow.seal(
                id=uuid.UUID(event_id),
                type=name,
                schema_version=current_version(name),
                occurred_at=datetime.fromisoformat(occurred),
                recorded_at=datetime.fromisoformat(recorded),
                actor=who,
                source=source,
                payload=payload,
                position=position + k + 1,
            )
        )
        for k, (event_id, name, payload, occurred, recorded, who) in enumerate(events)
    ]
    assert lines == expected
    assert (fast.version, fast.head) == (slow.version, slow.head)


def test_decoding_errors_name_the_line_and_the_member() -> None:
    """Strict decoding: errors say ``line N: member: what``."""
    good = json.loads(encode_line(_chain(1, types=["round.settled"])[0]))
    bad_net = {
        **good,
        "payload": {
            **good["payload"],
            "settlements": [{"bet": "b", "outcome": "win", "net": "10"}],
        },
    }
    cases = [
        (bad_net, "line 12: payload.settlements[0].net: Expected `int`, got `str`"),
        ({**good, "surprise": 1}, "line 12: surprise: Object contains unknown field"),
        (
            {**good, "occurred_at": "2026-11-29T20:00:00"},
            "line 12: occurred_at: Expected `datetime` with a timezone",
        ),
        ({**good, "version": 0}, "line 12: version: Expected `int` >= 1"),
        ({**good, "version": True}, "line 12: version: Expected `int | null`, got `bool`"),
        (
            {k: v for k, v in good.items() if k != "id"},
            "line 12: id: Object missing required field `id`",
        ),
    ]
    for value, message in cases:
        with pytest.raises(LineError) as caught:
            decode_line(json.dumps(value), 12)
        assert str(caught.value).startswith(message), str(caught.value)
    with pytest.raises(LineError, match=r"^line 3: line: not JSON"):
        decode_line("{not json", 3)


def test_a_line_without_the_chain_members_is_not_chained_but_is_offered() -> None:
    """decode_line requires version, schema_version, recorded_at, prev_hash and hash
    (NotChained names the first missing); decode_fields, ingest's form, does not - but
    takes recorded_at and hash only together."""
    good = json.loads(encode_line(_chain(1)[0]))
    bare = {
        k: v
        for k, v in good.items()
        if k not in {"version", "schema_version", "recorded_at", "prev_hash", "hash", "position"}
    }
    with pytest.raises(NotChained, match="^line 4: version: missing"):
        decode_line(json.dumps(bare), 4)
    fields = decode_fields(json.dumps(bare), 4)
    assert fields.version is None and fields.hash is None and fields.stream == "T1"
    with pytest.raises(LineError, match="^line 4: hash: recorded_at and hash come together"):
        decode_fields(json.dumps({**bare, "recorded_at": good["recorded_at"]}), 4)


def test_decode_lines_numbers_lines_and_skips_blank_ones() -> None:
    """Line numbers count every line of the file, blank ones included."""
    a, b = (encode_line(e) for e in _chain(2))
    assert [n for n, _ in decode_lines(io.BytesIO(a + b"\n  \n" + b))] == [1, 4]


def test_with_position_changes_the_envelope_position_only() -> None:
    """A shoe.cut payload has a member named position too; only the envelope's changes."""
    [envelope] = _chain(1, types=["shoe.cut"])
    moved = decode_line(with_position(encode_line(envelope), 987654), 1)
    assert moved.position == 987654 and moved.payload == envelope.payload
    assert with_position(encode_line(envelope), 987654) == encode_line(
        Envelope(
            **{**{f: getattr(envelope, f) for f in envelope.__struct_fields__}, "position": 987654}
        )
    )
