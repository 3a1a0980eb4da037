"""``manage.py replay FILE.jsonl``: the offline replay a regulator runs on an export."""

from __future__ import annotations

import json
import pathlib

import pytest

from tables.engine.offline import UnusableInput, replay_lines
from tests.commands import run_command

from .helpers import edit, find
from .test_replay_record import _table


def _write(path: pathlib.Path, events: list[dict]) -> pathlib.Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _run(*args: str) -> tuple[int, str, str]:
    return run_command("replay", *args)


def test_a_clean_file_exits_0_with_a_summary_and_every_bet_when_asked(
    tmp_path: pathlib.Path,
) -> None:
    """A clean export: exit 0 and a summary per table (rounds, bets, the house result
    recorded and recomputed in the table's currency, no findings), no bet; with --bets
    every bet recomputed against recorded."""
    path = _write(tmp_path / "t.jsonl", _table().events)
    code, out, _ = _run(str(path))
    assert code == 0
    assert "1 round, 2 bets" in out and "findings: none" in out and "Clean" in out
    assert "house result: recorded -EUR 10.00, recomputed -EUR 10.00" in out
    assert "r1b1" not in out
    code, out, _ = _run(str(path), "--bets")
    assert code == 0
    assert "1 rounds, 2 bets, 0 findings" in out and "r1b1" in out and "Clean" in out


def test_a_tampered_file_is_refused_unless_the_chain_check_is_skipped(
    tmp_path: pathlib.Path,
) -> None:
    """A payout changed in the file breaks its line's hash: replay refuses the file, exit
    1, naming the line, stream, version and ``altered``, and reports no round. With
    --no-verify-chain it says on stderr that the chain was not checked and replays the
    file as before: exit 1, and --json gives the wrong payout with expected and recorded."""
    events = _table().events
    settled = find(events, "round.settled")
    wrong = [
        {"bet": "r1b1", "outcome": "win", "net": 999},
        {"bet": "r1b2", "outcome": "push", "net": 0},
    ]
    path = _write(tmp_path / "t.jsonl", edit(events, settled, settlements=wrong))
    code, out, err = _run(str(path), "--json")
    assert code == 1 and out == ""
    assert f"line {settled + 1}: T1: first bad event is version {settled + 1}" in err
    assert "altered" in err and "not replayed" in err
    code, out, err = _run(str(path), "--json", "--no-verify-chain")
    assert code == 1
    assert "hash chains were not checked" in err
    report = json.loads(out)
    assert report["findings"] == 1
    finding = report["streams"][0]["findings"][0]
    assert finding["kind"] == "wrong_payout" and finding["bet"] == "r1b1"
    assert finding["expected"] == "win +1000" and finding["recorded"] == "win +999"


def test_a_removed_line_is_refused_as_a_gap(tmp_path: pathlib.Path) -> None:
    """A line taken out of the file leaves a hole in the versions: exit 1, the gap named."""
    events = _table().events
    path = _write(tmp_path / "t.jsonl", events[:6] + events[7:])
    code, _, err = _run(str(path))
    assert code == 1 and "line 7: T1: first bad event is version 8" in err and "gap" in err


def test_a_file_without_hash_chains_replays_only_when_told_to_skip_the_check(
    tmp_path: pathlib.Path,
) -> None:
    """Hand-written lines without version, recorded_at, prev_hash and hash are not an
    envelope to verify: exit 2 naming the first line and the flag; with
    --no-verify-chain they replay clean."""
    chained = ("version", "recorded_at", "prev_hash", "hash", "position", "schema_version")
    events = [{k: v for k, v in e.items() if k not in chained} for e in _table().events]
    path = _write(tmp_path / "hand.jsonl", events)
    code, out, err = _run(str(path))
    assert code == 2 and "line 1: version: missing" in err and "--no-verify-chain" in err
    assert out == ""
    code, out, _ = _run(str(path), "--no-verify-chain")
    assert code == 0 and "1 round, 2 bets" in out and "Clean" in out


def test_unusable_input_exits_2_naming_the_line(tmp_path: pathlib.Path) -> None:
    """A line that is not JSON, or a payload the catalogue refuses, makes the file
    unusable: exit 2, with the line number and the reason."""
    events = _table().events
    lines = [json.dumps(e) for e in events]
    lines[4] = "{not json"
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, _, err = _run(str(path))
    assert code == 2 and "line 5" in err
    bad = edit(events, find(events, "card.dealt"), card="ZZ")
    with pytest.raises(UnusableInput) as caught:
        replay_lines(json.dumps(e) for e in bad)
    assert caught.value.line == find(events, "card.dealt") + 1 and "card" in caught.value.reason


def test_envelope_members_the_store_refuses_make_the_file_unusable(tmp_path: pathlib.Path) -> None:
    """Issue 14, item 7: an offline replay checks the envelope's members as the store does,
    with or without the chain check - an actor or source that is no identifier, a stream
    that is no table code, a time that is not RFC 3339 with an offset: exit 2 naming the
    line and the member (garbage hashes are the chain check's, above)."""
    events = _table().events
    bad = [("actor", "??"), ("source", "a b"), ("stream", "T 1"), ("occurred_at", "yesterday")]
    for member, value in bad:
        changed = list(events)
        changed[3] = {**events[3], member: value}
        for flags in ((), ("--no-verify-chain",)):
            path = _write(tmp_path / f"{member}.jsonl", changed)
            code, out, err = _run(str(path), *flags)
            assert code == 2 and out == "", (member, flags)
            assert f"line 4: {member}" in err, (member, err)
