"""The command: a file, a manifest, and exit status 2 with a line saying what for bad
arguments."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_writes_the_file_and_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "day.jsonl"
    manifest = tmp_path / "m.json"
    stdout = io.StringIO()
    call_command(
        "simulate",
        "--tables",
        "2",
        "--rounds",
        "5",
        "--seed",
        "c",
        "--live-bets",
        "10",
        "--out",
        str(out),
        "--manifest",
        str(manifest),
        "--fault",
        "overpay@BJ-02:2",
        stdout=stdout,
        stderr=io.StringIO(),
    )
    lines = out.read_bytes().splitlines()
    data = json.loads(manifest.read_text())
    assert len(lines) == data["events"] and data["rounds"] == 10
    assert [f["kind"] for f in data["faults"]] == ["overpay"]
    assert "10 rounds" in stdout.getvalue()


def test_a_shorter_last_day(tmp_path: Path) -> None:
    """Two gaming days, the second of 2 rounds (the demo's); a fault in the first day's
    last round, in the file (it-classic: no push is carried to a round more)."""
    manifest = tmp_path / "m.json"
    call_command(
        "simulate",
        "--tables",
        "1",
        "--preset",
        "it-classic",
        "--rounds",
        "6",
        "--days",
        "2",
        "--last-day-rounds",
        "2",
        "--seed",
        "last",
        "--out",
        str(tmp_path / "d.jsonl"),
        "--manifest",
        str(manifest),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    events = [json.loads(line) for line in (tmp_path / "d.jsonl").read_bytes().splitlines()]
    started = [
        (e["payload"]["round"], day) for e, day in _with_day(events) if e["type"] == "round.started"
    ]
    assert [n for n, day in started if day == "2026-11-29"] == [1, 2, 3, 4, 5, 6]
    assert [n for n, day in started if day == "2026-11-30"] == [7, 8]
    assert json.loads(manifest.read_text())["rounds"] == 8


def _with_day(events: list[dict]) -> list[tuple[dict, str]]:
    day, out = "", []
    for e in events:
        if e["type"] == "table.opened":
            day = e["payload"]["gaming_day"]
        out.append((e, day))
    return out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--fault-rate", "bogus=0.1"], "unknown fault kind 'bogus'"),
        (["--fault-rate", "short_pay=1.5"], "a rate is a probability between 0 and 1"),
        (["--fault-rate", "short_pay=lots"], "is not a number"),
        (["--fault-rate", "short_pay"], "expected KIND=RATE"),
        (["--fault", "short_pay@BJ-01"], "expected KIND@TABLE:ROUND"),
        (["--fault", "nope@BJ-01:3"], "unknown fault kind 'nope'"),
        (["--fault", "short_pay@BJ-99:3"], "no table BJ-99"),
        (["--fault", "short_pay@BJ-01:999"], "plays 5 rounds"),
        (["--fault", "fill_twice@BJ-01:2"], "live table"),
        (["--preset", "baccarat"], "unknown preset 'baccarat'"),
        (["--tables", "0"], "--tables must be at least 1"),
        (["--start", "yesterday"], "--start 'yesterday'"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--prefix", "T 1"], "--prefix 'T 1'"),
        (["--last-day-rounds", "0"], "--last-day-rounds must be at least 1"),
        (
            ["--days", "2", "--last-day-rounds", "2", "--fault", "short_pay@BJ-01:8"],
            "plays 7 rounds",
        ),
    ],
)
def test_bad_arguments_exit_2_saying_what(tmp_path: Path, args: list[str], says: str) -> None:
    with pytest.raises(CommandError, match=says.replace("(", r"\(")) as caught:
        call_command("simulate", "--rounds", "5", "--out", str(tmp_path / "x.jsonl"), *args)
    assert caught.value.returncode == 2


def test_check_audits_the_file_against_the_manifest(tmp_path: Path) -> None:
    stdout = io.StringIO()
    call_command(
        "simulate",
        "--tables",
        "3",
        "--rounds",
        "12",
        "--seed",
        "chk",
        "--live-bets",
        "10",
        "--out",
        str(tmp_path / "f.jsonl"),
        "--fault",
        "short_pay@BJ-02:2",
        "--fault",
        "tamper@BJ-03:3",
        "--fault",
        "fill_twice@BJ-02:4",
        "--check",
        stdout=stdout,
        stderr=io.StringIO(),
    )
    assert "exactly what the 3 planted faults must show (3 findings" in stdout.getvalue()


def test_check_needs_a_file() -> None:
    with pytest.raises(CommandError, match="use it with --out FILE") as caught:
        call_command("simulate", "--rounds", "5", "--into-store", "--check")
    assert caught.value.returncode == 2


def test_no_output_named_exits_2() -> None:
    with pytest.raises(CommandError, match="--out FILE or --into-store") as caught:
        call_command("simulate", "--rounds", "5")
    assert caught.value.returncode == 2


def test_from_the_shell_a_bad_kind_exits_2_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "simulate",
            "--rounds",
            "3",
            "--out",
            str(tmp_path / "x.jsonl"),
            "--fault-rate",
            "misdeal=0.1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown fault kind 'misdeal'" in done.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_check_reports_a_fault_the_audit_did_not_find() -> None:
    from casino.simcheck import check_lines
    from tables.simulator.config import SimConfig

    from .helpers import run

    data, manifest = run(SimConfig(tables=2, rounds=4, seed="miss", live_bets=5))
    claimed = {
        "kind": "overpay",
        "table": "BJ-02",
        "finding": {"kind": "wrong_payout", "check": "engine", "round": 2},
    }
    result = check_lines(data.split(b"\n"), {**manifest, "faults": [claimed]})
    assert not result.ok
    assert (
        dict(result.missed) == {("engine", "BJ-02", "wrong_payout", "2"): 1}
        and not result.unexpected
    )
