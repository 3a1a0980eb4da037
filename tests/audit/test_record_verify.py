"""The one chain verifier (``audit.record.verify``), over envelopes and file lines:
pure, no database."""

from __future__ import annotations

import tracemalloc
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from audit.record.envelope import Envelope, StreamChain
from audit.record.findings import KINDS, kinds_of
from audit.record.jsonl import LineError, encode_line
from audit.record.verify import Head, Problem, verify, verify_lines

T0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def _stream(stream: str, n: int, *, first_position: int = 1, step: int = 1) -> list[Envelope]:
    chain = StreamChain(stream)
    return [
        chain.seal(
            id=uuid.uuid5(uuid.NAMESPACE_URL, f"{stream}/{k}"),
            type="round.started",
            schema_version=1,
            occurred_at=T0 + timedelta(seconds=k),
            recorded_at=T0,
            actor="dealer:D1",
            source="test",
            payload={"round": k + 1, "shoe": "S1"},
            position=first_position + step * k,
        )
        for k in range(n)
    ]


def _kinds(envelopes: list[Envelope], **options: object) -> list[tuple[str, int, str]]:
    return [(p.stream, p.version, p.kind) for p in verify(envelopes, **options).problems]  # type: ignore[arg-type]


def _with(envelope: Envelope, **changes: object) -> Envelope:
    return msgspec.structs.replace(envelope, **changes)


def test_intact_interleaved_streams_verify_clean_with_their_counts() -> None:
    """Two streams interleaved (a file in position order) verify clean."""
    one, two = _stream("T1", 5, step=2), _stream("T2", 5, first_position=2, step=2)
    report = verify([e for pair in zip(one, two) for e in pair])
    assert report.ok and (report.streams, report.events) == (2, 10)


def test_every_kind_is_found_and_only_the_first_of_a_stream() -> None:
    """Each tampering shows as its kind at its version; after a stream's first problem
    nothing more of it is reported."""
    events = _stream("T1", 6)
    altered = _with(events[2], payload={"round": 99, "shoe": "S1"})
    assert _kinds(events[:2] + [altered] + events[3:]) == [("T1", 3, "altered")]
    assert _kinds(events[:2] + events[3:]) == [("T1", 4, "gap")]
    assert _kinds(events[:2] + [events[3], events[2]] + events[4:]) == [("T1", 4, "gap")]
    assert _kinds(events[1:]) == [("T1", 2, "bad_start")]
    relinked = _with(events[3], prev_hash="b" * 64)
    assert _kinds(events[:3] + [relinked] + events[4:]) == [("T1", 4, "broken_link")]
    moved = _with(events[4], position=1)
    assert _kinds(events[:4] + [moved] + events[5:]) == [("T1", 5, "reordered")]
    rehashed = _with(events[1], payload={"round": "one"})
    rehashed = _with(rehashed, hash=rehashed.computed_hash())
    later = StreamChain("T1", version=2, head=rehashed.hash).seal(
        id=events[2].id,
        type="round.started",
        schema_version=1,
        occurred_at=T0,
        recorded_at=T0,
        actor="a",
        source="s",
        payload={"round": 3, "shoe": "S1"},
        position=3,
    )
    assert _kinds([events[0], rehashed, later]) == [("T1", 2, "invalid")]


def test_a_known_head_shows_a_cut_tail_a_missing_stream_and_a_rewritten_chain() -> None:
    """Given a stream's known head (version, hash), a record that ends before it is
    ``truncated`` - named at its last event - a stream not there at all too, and one
    whose event at that version has another hash is ``head_mismatch``; a stream that
    grew past its head is fine."""
    events = _stream("T1", 10)
    head = {"T1": (10, events[9].hash)}
    assert verify(events, heads=head).ok
    assert verify(events + _stream("T1", 12)[10:], heads={"T1": (10, events[9].hash)}).ok
    cut = verify(events[:7], heads=head)
    [problem] = cut.problems
    assert (problem.stream, problem.version, problem.kind) == ("T1", 7, "truncated")
    assert problem.event_id == str(events[6].id) and "version 10" in problem.detail
    assert "T1: ends at version 7" in str(problem)
    [gone] = verify(events, heads={**head, "T9": (4, "c" * 64)}).problems
    assert (gone.stream, gone.version, gone.kind) == ("T9", 0, "truncated")
    rewritten = StreamChain("T1")
    forged = [
        rewritten.seal(
            id=e.id,
            type=e.type,
            schema_version=1,
            occurred_at=e.occurred_at,
            recorded_at=e.recorded_at,
            actor=e.actor,
            source="forger",
            payload=e.payload,
            position=e.position,
        )
        for e in events
    ]
    assert verify(forged).ok  # consistent on its own: only the known head shows it
    assert _kinds(forged, heads=head) == [("T1", 10, "head_mismatch")]


def test_a_stream_can_start_after_its_genesis() -> None:
    """With ``start``, a stream's check begins after a given event (a window of recent
    events), and its first event must link to that one."""
    events = _stream("T1", 6)
    before = Head(3, events[2].hash, events[2].position or 0)
    assert verify(events[3:], start=lambda first: before).ok
    assert _kinds(events[3:], start=lambda first: Head(3, "d" * 64)) == [("T1", 4, "broken_link")]


def test_a_stream_whose_first_events_are_kept_elsewhere_starts_from_their_last() -> None:
    """With ``starts`` (its first versions archived), a stream is checked from the given
    version and hash: its next event must follow and link to it; a start any later, or a
    link to another hash, is reported; a known head at or below the archived version holds
    only with the same hash; a stream archived whole ends at its start."""
    events = _stream("T1", 6)
    kept = {"T1": (3, events[2].hash)}
    assert verify(events[3:], starts=kept).ok
    assert _kinds(events[4:], starts=kept) == [("T1", 5, "bad_start")]
    assert _kinds(events[3:], starts={"T1": (3, "d" * 64)}) == [("T1", 4, "broken_link")]
    assert _kinds(events[3:]) == [("T1", 4, "bad_start")]  # no start given: from the genesis
    assert verify(events[3:], starts=kept, heads={"T1": (2, events[1].hash)}).ok
    assert _kinds(events[3:], starts=kept, heads={"T1": (3, "d" * 64)}) == [
        ("T1", 3, "head_mismatch")
    ]
    assert verify([], starts=kept, heads={"T1": (3, events[2].hash)}).ok
    assert _kinds([], starts=kept, heads={"T1": (6, events[5].hash)}) == [("T1", 3, "truncated")]
    # with a window's start (``since``) too, the archived start serves the event right after it
    assert verify(events[3:], starts=kept, start=lambda first: Head(3, "?")).ok


def test_file_lines_are_named_in_problems() -> None:
    """From a file, each problem names its line; a line that is not an envelope stops
    the check with a LineError naming it."""
    lines = [encode_line(e) for e in _stream("T1", 5)]
    lines[3] = lines[3].replace(b'"round":4', b'"round":5')
    [problem] = verify_lines([lines[0], b"\n", *lines[1:]]).problems
    assert (problem.line, problem.version, problem.kind) == (5, 4, "altered")
    assert str(problem).startswith("line 5: T1: first bad event is version 4 at position 4 (id ")
    with pytest.raises(LineError, match="^line 2: line: not JSON"):
        verify_lines([lines[0], b"{1,"])


def test_every_kind_the_verifier_reports_is_declared_for_it() -> None:
    """The verifier's kinds are the vocabulary's integrity kinds (with what the
    verification around it reports: the store's protection, the rows people act on, an
    ingest that stopped, a person's authority); a problem of another kind cannot be made."""
    assert {
        "bad_start",
        "gap",
        "reordered",
        "broken_link",
        "altered",
        "invalid",
        "truncated",
        "head_mismatch",
        "unsealed",
        "protection_broken",
        "read_model_differs",
        "ingest_unfinished",
        "authority_unsealed",
    } == kinds_of("integrity")
    assert all(KINDS[k].severity == "critical" for k in kinds_of("integrity"))
    with pytest.raises(ValueError):
        Problem("T1", 1, None, "", "wrong_payout", "not the verifier's")


def _many(streams: int, per_stream: int) -> Iterator[Envelope]:
    chains = [StreamChain(f"T{s}") for s in range(streams)]
    for k in range(per_stream):
        for s, chain in enumerate(chains):
            yield chain.seal(
                id=uuid.UUID(int=k * streams + s),
                type="betting.closed",
                schema_version=1,
                occurred_at=T0,
                recorded_at=T0,
                actor="a",
                source="s",
                payload={"round": k + 1},
                position=k * streams + s + 1,
            )


def test_memory_stays_flat_in_the_number_of_events() -> None:
    """Ten times the events (same streams) take about the same peak memory: only each
    stream's head is kept."""
    peaks = []
    for per_stream in (300, 3000):
        tracemalloc.start()
        report = verify(_many(4, per_stream))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert report.ok and report.events == 4 * per_stream
    assert peaks[1] < 1.5 * peaks[0] + 20_000, peaks
