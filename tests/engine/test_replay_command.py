"""``manage.py replay FILE.jsonl``: the offline replay a regulator runs on an export."""
from __future__ import annotations

import io
import json
import pathlib

import pytest
from django.core.management import call_command

from tables.engine.jsonl import UnusableInput, replay_lines

from .helpers import edit, find
from .test_replay_record import _table


def _write(path: pathlib.Path, events: list[dict]) -> pathlib.Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("replay", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exit:
        code = int(exit.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_a_clean_file_exits_0_with_every_bet(tmp_path: pathlib.Path) -> None:
    """A clean export: exit 0, a report naming the rounds and every bet recomputed
    against recorded."""
    path = _write(tmp_path / "t.jsonl", _table().events)
    code, out, _ = _run(str(path))
    assert code == 0
    assert "1 rounds, 2 bets, 0 findings" in out and "r1b1" in out and "Clean" in out


def test_findings_exit_1_and_json_names_them(tmp_path: pathlib.Path) -> None:
    """A tampered payout: exit 1; --json gives the finding with expected and recorded."""
    events = _table().events
    settled = find(events, "round.settled")
    wrong = [{"bet": "r1b1", "outcome": "win", "net": 999}, {"bet": "r1b2", "outcome": "push", "net": 0}]
    path = _write(tmp_path / "t.jsonl", edit(events, settled, settlements=wrong))
    code, out, _ = _run(str(path), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["findings"] == 1
    finding = report["streams"][0]["findings"][0]
    assert finding["kind"] == "wrong_payout" and finding["bet"] == "r1b1"
    assert finding["expected"] == "win +1000" and finding["recorded"] == "win +999"


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
