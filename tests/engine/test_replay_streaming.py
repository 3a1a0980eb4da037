"""``manage.py replay FILE``, streamed (tables.replay_file): the same report as the
engine's whole-file reader gives, in memory that does not hold the file."""

from __future__ import annotations

import io
import json
import pathlib
import uuid
from collections import defaultdict

import pytest

from tables.engine.offline import replay_lines
from tables.engine.report import as_dict, as_summary, as_text
from tables.replay_file import spool_lines
from tables.simulator.config import SimConfig
from tables.simulator.faults import parse_at
from tables.simulator.run import FileSink, simulate
from tests.commands import run_command

from .helpers import find
from .test_replay_record import _table


@pytest.fixture(scope="module")
def day() -> list[bytes]:
    """Three tables' chained lines, one with a short payment (a finding) planted."""
    config = SimConfig(
        tables=3, rounds=6, seed="streaming", live_bets=20, at=(parse_at("short_pay@BJ-02:3"),)
    )
    out = io.BytesIO()
    simulate(config, FileSink(out, config))
    return out.getvalue().splitlines(keepends=True)


def _interleaved(lines: list[bytes]) -> list[bytes]:
    """The streams' lines dealt out in turn, each stream's order kept."""
    by_stream: dict[str, list[bytes]] = defaultdict(list)
    for line in lines:
        by_stream[json.loads(line)["stream"]].append(line)
    queues = list(by_stream.values())
    mixed = []
    while any(queues):
        for queue in queues:
            if queue:
                mixed.append(queue.pop(0))
    return mixed


@pytest.mark.parametrize("mixed", [False, True], ids=["grouped", "interleaved"])
def test_the_report_is_the_whole_file_readers_byte_for_byte(
    day: list[bytes], tmp_path: pathlib.Path, mixed: bool
) -> None:
    """--json, --bets and the summary are what the engine's reader of the whole file
    gives (the JSON exactly as json.dumps indents it), whether the tables' lines come one
    table after another or interleaved, and whether the tables are replayed in this
    process or by workers; the planted short payment is found, exit 1."""
    lines = _interleaved(day) if mixed else day
    assert mixed == (lines != day)
    path = tmp_path / "day.jsonl"
    path.write_bytes(b"".join(lines))
    whole = replay_lines(lines)
    assert [r.stream for r in whole] == ["BJ-01", "BJ-02", "BJ-03"]
    assert any(f.kind in ("wrong_payout", "missing_settlement") for f in whole[1].findings)
    for jobs in ("1", "3"):  # in this process, and fanned out over workers
        code, out, _ = run_command("replay", str(path), "--json", "--jobs", jobs)
        assert code == 1
        assert out == json.dumps(as_dict(whole), indent=2, ensure_ascii=False) + "\n"
    code, out, _ = run_command("replay", str(path), "--bets")
    assert code == 1 and out == as_text(whole) + "\n"
    currencies = {
        e["stream"]: e["payload"]["currency"]
        for e in map(json.loads, lines)
        if e["type"] == "table.opened"
    }
    code, out, _ = run_command("replay", str(path))
    assert code == 1 and out == as_summary(whole, currencies) + "\n"


def test_a_correction_strikes_an_event_that_came_before_it(tmp_path: pathlib.Path) -> None:
    """The fold skips a struck event from the start, though the correction comes after it
    in the file: the streamed replay is clean exactly as the whole-file one is."""
    chained = ("version", "recorded_at", "prev_hash", "hash", "position", "schema_version")
    events = [{k: v for k, v in e.items() if k not in chained} for e in _table().events]
    settled = find(events, "round.settled")
    stray_id = str(uuid.uuid4())
    stray = {
        "id": stray_id,
        "type": "card.dealt",
        "payload": {"round": 1, "box": None, "hand": None, "card": "4C", "face": "up"},
    }
    strike = {
        "id": str(uuid.uuid4()),
        "type": "correction.recorded",
        "payload": {
            "round": 1,
            "corrects": stray_id,
            "settlements": [],
            "reason": "keyed twice",
            "authorised_by": "pit1",
        },
    }
    base = {k: v for k, v in events[0].items() if k not in ("id", "type", "payload")}
    lines = (
        [json.dumps(e) for e in events[:settled]]
        + [json.dumps({**base, **stray})]
        + [json.dumps(e) for e in events[settled:]]
    )
    lines_struck = [*lines, json.dumps({**base, **strike})]
    for text, clean in ((lines, False), (lines_struck, True)):
        path = tmp_path / "t.jsonl"
        path.write_text("\n".join(text) + "\n")
        code, out, _ = run_command("replay", str(path), "--json", "--no-verify-chain")
        assert code == (0 if clean else 1)
        assert json.loads(out) == as_dict(replay_lines(text, verify_chain=False))


def test_nothing_is_left_on_disk(
    day: list[bytes], monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    """The spools go when the replay is done, and when a file is refused half-read."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with spool_lines(day) as spooled:
        assert len(list(spooled.replay())) == 3
        assert list(tmp_path.iterdir())
    assert not list(tmp_path.iterdir())
    broken = list(day)
    broken[5] = b"{not json\n"
    with pytest.raises(ValueError):
        spool_lines(broken)
    assert not list(tmp_path.iterdir())


def test_a_repeated_event_is_found_where_the_whole_file_finds_it(tmp_path: pathlib.Path) -> None:
    """The streamed fold keeps the event ids behind a filter (audit.record.ids.IdSet), not
    in a dict: a line repeated late, and one repeated at once, give the whole-file
    reader's findings, in the same places."""
    chained = ("version", "recorded_at", "prev_hash", "hash", "position", "schema_version")
    events = [{k: v for k, v in e.items() if k not in chained} for e in _table().events]
    lines = [json.dumps(e) for e in events]
    repeated = [*lines[:4], lines[3], *lines[4:], lines[1]]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(repeated) + "\n")
    code, out, _ = run_command("replay", str(path), "--json", "--no-verify-chain")
    whole = as_dict(replay_lines(repeated, verify_chain=False))
    assert [f["kind"] for f in whole["streams"][0]["findings"]].count("duplicate_event") == 2
    assert code == 1 and json.loads(out) == whole


def test_a_streams_rounds_are_held_on_disk_and_its_report_written_a_round_at_a_time(
    day: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory does not grow with a table's day: each round but the one in play goes to
    the fold's shelf (a temporary file) once the next starts, and the report is written
    as the rounds are thawed, one at a time."""
    from audit.record.shelf import Shelf
    from tables import replay_file

    shelved: list[int] = []
    put = Shelf.put
    monkeypatch.setattr(
        Shelf, "put", lambda self, data: shelved.append(len(data)) or put(self, data)
    )
    with spool_lines(day) as spooled:
        name = next(iter(spooled.streams))
        stream = spooled.streams[name]
        with replay_file.fold_stream(
            name, spooled.events(name), stream.struck, expected=stream.events
        ) as folded:
            # the rounds are pickled and shelved while the events are read, before any is asked for
            assert len(shelved) >= folded.rounds - 1 > 0
            rounds = folded.each_round()
            first = next(rounds)
            assert first.number == 1 and sum(1 for _ in rounds) == folded.rounds - 1
