"""The command line without rough edges: every command states its exit codes, bad input
is exit 2 with a line saying what and where, an unmigrated database says what to run,
long commands show a bar with a total on a terminal and nothing in a pipe."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from audit.models import Event
from audit.presenting.commands import BackOfficeCommand
from audit.presenting.progress import count_lines
from audit.store.export import export_events
from tests.back_office.helpers import DAY, append, dealt
from tests.celery_worker import ROOT
from tests.commands import run_command

OURS = ("audit", "tables", "ledger", "regulator", "casino")


def _manage(*args: str, database: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "DATABASE_URL": database,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        **env,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _ours() -> list[tuple[str, str]]:
    return sorted((name, app) for name, app in get_commands().items() if app in OURS)


@pytest.mark.parametrize(("name", "app"), _ours())
def test_every_command_states_its_exit_codes_in_its_help(name: str, app: str) -> None:
    command = load_command_class(app, name)
    assert isinstance(command, BackOfficeCommand)
    text = " ".join(command.create_parser("manage.py", name).format_help().split())
    assert "Exit codes: 0 " in text and "2 " in text.split("Exit codes:")[1]


@pytest.mark.parametrize(
    "args",
    [
        ("ingest", "{file}"),
        ("export_events",),
        ("verify",),
        ("replay_day", "--day", "2026-11-29"),
        ("catch_up",),
        ("rebuild_projections",),
    ],
)
def test_a_command_on_an_unmigrated_database_says_to_migrate(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Exit 2 and one line naming the database and 'run manage.py migrate' - no traceback."""
    line = tmp_path / "one.jsonl"
    line.write_text(
        json.dumps(
            {
                "id": "00000000-0000-4000-8000-000000000001",
                "stream": "T1",
                "type": "table.closed",
                "occurred_at": "2026-11-29T20:00:00Z",
                "actor": "x",
                "source": "y",
                "payload": {"gaming_day": "2026-11-29"},
            }
        )
        + "\n"
    )
    database = tmp_path / "never-migrated.sqlite3"
    done = _manage(*(a.format(file=line) for a in args), database=f"sqlite:///{database}")
    assert done.returncode == 2, done.stderr
    assert "is not migrated" in done.stderr and "run manage.py migrate" in done.stderr
    assert str(database) in done.stderr and "Traceback" not in done.stderr


@pytest.mark.django_db
def test_export_events_refuses_an_unknown_stream_and_an_unwritable_path(tmp_path: Path) -> None:
    append("T1", dealt("hoyle", rounds=1))
    out = tmp_path / "x.jsonl"
    code, _, err = run_command("export_events", "--stream", "NOPE", "--out", str(out))
    assert code == 2 and "'NOPE'" in err and "no events" in err and not out.exists()
    code, _, err = run_command("export_events", "--out", "/nonexistent/dir/x.jsonl")
    assert code == 2 and "/nonexistent/dir/x.jsonl" in err and "No such file or directory" in err
    code, _, err = run_command("export_events", "--stream", "T1", "--out", str(out))
    assert code == 0 and count_lines(str(out)) == Event.objects.filter(stream="T1").count()


@pytest.mark.django_db
def test_replay_day_without_a_day_refuses_naming_the_days_it_could_mean(settings) -> None:
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=2))
    run_command("replay_day", "--stream", "T1")
    code, _, err = run_command("replay_day")
    assert (
        code == 2
        and "--day YYYY-MM-DD, or --day today" in err
        and str(DAY) in err
        and "--stream" in err
    )
    code, out, _ = run_command("replay_day", "--day", "today")
    assert code == 0 and "findings by kind: none" in out
    code, _, err = run_command("replay_day", "--day", "yesterday")
    assert code == 2 and "expected YYYY-MM-DD or 'today'" in err


def test_the_demo_checks_its_port_before_anything_else() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_command("demo", "--addr", f"127.0.0.1:{port}", "--rounds", "1")
    assert (
        code == 2
        and f"--addr 127.0.0.1:{port}: cannot serve there" in err
        and "another --addr" in err
    )
    assert "migrating" not in out  # nothing was done before the check


def test_house_edge_and_strategy_name_what_set_changed() -> None:
    code, out, _ = run_command(
        "house_edge", "--ruleset", "hoyle", "--set", "decks=2", "--set", "surrender=late"
    )
    assert code == 0 and out.startswith(
        "House edge of hoyle with decks=2, surrender=late (2 decks)"
    )
    code, out, _ = run_command("strategy", "--ruleset", "hoyle", "--set", "decks=2")
    assert code == 0 and out.startswith("Basic strategy for hoyle with decks=2\n")
    code, out, _ = run_command("strategy", "--ruleset", "hoyle")
    assert out.startswith("Basic strategy for hoyle\n")
    code, _, err = run_command("house_edge", "--ruleset", "nope")
    assert code == 2 and "nope" in err


@pytest.mark.django_db
def test_create_device_refuses_a_persons_name_as_bad_input(django_user_model) -> None:
    django_user_model.objects.create_user("alice")
    code, out, err = run_command("create_device", "T1", "--username", "alice")
    assert code == 2 and "alice" in err and out == ""


def test_count_lines_counts_a_last_line_without_a_newline(tmp_path: Path) -> None:
    for text, lines in (("", 0), ("a\n", 1), ("a\nb", 2), ("a\nb\n", 2), ("\n\n", 2)):
        (tmp_path / "f").write_text(text)
        assert count_lines(str(tmp_path / "f")) == lines


@pytest.mark.django_db(transaction=True)
def test_ingest_reports_every_line_checked_then_written_and_is_quiet_in_a_pipe(
    tmp_path: Path,
) -> None:
    """The bar's total is the file's lines, known before anything is read: the check
    reaches it, the writes add up to the events stored. In a pipe (no terminal) not a
    byte of bar goes to stderr."""
    from audit.store.ingest import ingest_file

    from ..back_office.test_feed import write_jsonl

    path = write_jsonl(tmp_path / "day.jsonl", dealt("hoyle", rounds=3))
    lines = count_lines(str(path))
    checked, written = [], []
    report = ingest_file(str(path), chunk=10, checked=checked.append, progress=written.append)
    assert checked[-1] == lines == report.lines and sum(written) == report.stored == lines
    database = tmp_path / "piped.sqlite3"
    assert _manage("migrate", "-v0", database=f"sqlite:///{database}").returncode == 0
    piped = _manage(
        "ingest", str(path), database=f"sqlite:///{database}", PROJECT_ON_APPEND="false"
    )
    assert piped.returncode == 0 and piped.stderr == ""


@pytest.mark.django_db
def test_export_rebuild_and_catch_up_report_progress_up_to_their_totals(settings) -> None:
    import io

    from audit.feed.subscribers import catch_up, feed_head
    from tables.projections import rebuild, rebuild_streams

    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=2))
    append("T2", dealt("hoyle", rounds=2, table="T2", seed="t2"))
    moved: list[int] = []
    count = export_events(io.StringIO(), progress=moved.append)
    assert sum(moved) == count == Event.objects.count()
    seen: list[tuple[int, int]] = []
    catch_up("tables.projections", most=50, progress=lambda at, head: seen.append((at, head)))
    assert seen[-1] == (feed_head(), feed_head()) and len(seen) > 1
    tables: list[str] = []
    rebuild(progress=tables.append)
    assert tables == rebuild_streams() == ["T1", "T2"]


def _reader_gone(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    """``argv`` with its standard output a pipe whose reader is gone before anything is
    written (as ``| head`` is once it has its lines)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            argv,
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=180,
            check=False,
        )
    finally:
        os.close(write)


def test_a_command_whose_reader_went_away_ends_quietly(tmp_path: Path) -> None:
    """``manage.py replay FILE --json | head`` and ``blackjack-audit verify P | head``: no
    traceback when the pipe closes, exit 141 as a program the pipe's signal ended, where
    both ended in a BrokenPipeError's traceback."""
    from tests.package.test_format_fixture import FIXTURE_V3

    day = tmp_path / "day.jsonl"
    day.write_bytes(
        b"".join(json.dumps(e).encode() + b"\n" for e in dealt("hoyle", rounds=3, table="T1"))
    )
    done = _reader_gone(
        [sys.executable, "manage.py", "replay", str(day), "--json", "--no-verify-chain"],
        DJANGO_SETTINGS_MODULE="casino.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert (done.returncode, "Traceback" in done.stderr) == (141, False), done.stderr
    done = _reader_gone([sys.executable, "-m", "auditor.cli", "verify", str(FIXTURE_V3)])
    assert (done.returncode, "Traceback" in done.stderr) == (141, False), done.stderr
