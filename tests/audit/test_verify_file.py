"""``manage.py verify --file``: the chain check of an exported file, offline, with the
same verifier as the store's."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from audit.store.streams import events_append
from tests.commands import run_command
from tests.samples import round_events

from .tampering import tamper

pytestmark = pytest.mark.django_db


def _verify(*args: str) -> tuple[int, str, str]:
    return run_command("verify", *args)


@pytest.fixture
def exported(tmp_path: Path) -> list[bytes]:
    """The lines of an export of two tables (T1 and T2, 50 events each, interleaved)."""
    for r in range(2):
        for stream in ("T1", "T2"):
            events_append(stream=stream, expected_version=25 * r, events=round_events(r + 1))
    out = tmp_path / "export.jsonl"
    call_command("export_events", "--out", str(out), stderr=io.StringIO())
    return out.read_bytes().splitlines(keepends=True)


def _file(tmp_path: Path, lines: list[bytes], name: str = "f.jsonl") -> str:
    path = tmp_path / name
    path.write_bytes(b"".join(lines))
    return str(path)


def _line_of(lines: list[bytes], stream: str, version: int) -> int:
    """The 0-based index of a stream's version in the file."""
    return next(
        i
        for i, line in enumerate(lines)
        if json.loads(line)["stream"] == stream and json.loads(line)["version"] == version
    )


def test_the_clean_file_exits_0_with_the_counts(exported, tmp_path):
    code, out, err = _verify("--file", _file(tmp_path, exported))
    assert code == 0 and not err
    assert "verified 100 events in 2 streams: all chains intact" in out


def test_one_changed_byte_exits_1_naming_the_line_stream_and_version(exported, tmp_path):
    """One byte of a stake changed (1000 -> 9000): that line's content no longer matches
    its hash."""
    index = _line_of(exported, "T2", 27)
    assert b'"amount":1000,' in exported[index]
    exported[index] = exported[index].replace(b'"amount":1000,', b'"amount":9000,')
    code, _, err = _verify("--file", _file(tmp_path, exported))
    assert code == 1
    [problem] = [line for line in err.splitlines() if "first bad event" in line]
    assert (
        f"line {index + 1}: T2: first bad event is version 27" in problem and "altered" in problem
    )
    assert "1 stream(s) with problems" in err


def test_a_removed_line_exits_1_naming_the_line_after_the_hole(exported, tmp_path):
    index = _line_of(exported, "T1", 30)
    after = _line_of(exported, "T1", 31)
    del exported[index]
    code, _, err = _verify("--file", _file(tmp_path, exported))
    assert code == 1
    assert (
        f"line {after}: T1: first bad event is version 31" in err
        and "gap" in err
        and "30..30" in err
    )


def test_two_lines_swapped_exit_1_naming_the_first(exported, tmp_path):
    """Versions 5 and 6 of T1 swapped: the line that now comes first is out of turn."""
    five, six = _line_of(exported, "T1", 5), _line_of(exported, "T1", 6)
    exported[five], exported[six] = exported[six], exported[five]
    code, _, err = _verify("--file", _file(tmp_path, exported))
    assert code == 1
    assert f"line {five + 1}: T1: first bad event is version 6" in err and "gap" in err


def test_a_file_that_is_not_json_lines_exits_2_naming_the_line(exported, tmp_path):
    exported[3] = b"this is not an envelope\n"
    code, _, err = _verify("--file", _file(tmp_path, exported))
    assert code == 2 and "line 4: line: not JSON" in err
    exported[3] = b'{"stream": "T1"}\n'
    code, _, err = _verify("--file", _file(tmp_path, exported))
    assert code == 2 and "line 4: id: Object missing required field `id`" in err


def test_a_missing_file_exits_2_and_the_file_takes_no_store_options(tmp_path):
    code, _, err = _verify("--file", str(tmp_path / "nowhere.jsonl"))
    assert code == 2 and "nowhere.jsonl" in err
    code, _, err = _verify("--file", _file(tmp_path, []), "--stream", "T1")
    assert code == 2 and "--stream" in err


def test_nothing_to_verify_is_said_and_not_called_intact(tmp_path):
    """An empty file, or an empty store: 'no events to verify', exit 0."""
    code, out, _ = _verify("--file", _file(tmp_path, [b"\n"]))
    assert code == 0 and "no events to verify" in out and "intact" not in out
    code, out, _ = _verify()
    assert code == 0 and "no events to verify" in out and "intact" not in out


def test_the_file_and_the_store_find_the_same_problem(exported, tmp_path):
    """A stored event altered behind the triggers, exported: verify on the store and
    --file on the export report the same stream, version and kind."""
    tamper("DELETE FROM audit_event WHERE stream = 'T1' AND version = 12")
    store_code, _, store_err = _verify()
    out = tmp_path / "again.jsonl"
    call_command("export_events", "--out", str(out), stderr=io.StringIO())
    file_code, _, file_err = _verify("--file", str(out))
    assert store_code == file_code == 1
    assert (
        "T1: first bad event is version 13" in store_err
        and "T1: first bad event is version 13" in file_err
    )
    assert "gap" in store_err and "gap" in file_err
