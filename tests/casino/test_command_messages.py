"""Every command's answer to what a person gets wrong is one line naming what to do: a
database never migrated ("run manage.py migrate", exit 2), a setting that cannot be used
(exit 2, never a traceback), an option that does not go with another (the option to use),
a round a package does not hold (the rounds it does)."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
import zipfile
from datetime import date
from pathlib import Path

import pytest
from django.core.management import get_commands

from auditor.cli import main as audit_main
from casino.demo import DemoLogins, DemoPackage, ready_lines
from tests.celery_worker import ROOT
from tests.commands import run_command

# the project's apps: every command of theirs is below, in one of the lists
APPS = ("audit", "tables", "ledger", "regulator", "casino")
DAY = "2026-11-29"

# what each command is given: its minimal valid arguments ({tmp}: the test's folder)
NEEDS_THE_DATABASE: dict[str, tuple[str, ...]] = {
    "access_log": ("--check",),
    "api_token": ("alice",),
    "authority_seal": (),
    "catch_up": (),
    "create_device": ("BJ-01",),
    "digest": ("--if-needed",),
    "export_events": (),
    "export_package": ("--day", DAY, "--out", "{tmp}/package.zip"),
    "ingest": ("{tmp}/one.jsonl",),
    "rebuild_projections": (),
    "reconcile": ("--day", DAY),
    "replay_day": ("--day", DAY),
    "report": ("hold", "--from", DAY, "--to", DAY),
    "simulate": ("--into-store", "--rounds", "1", "--tables", "1"),
    "verify": (),
}
# these read no table of the database: they work on a database never migrated
NO_DATABASE: dict[str, tuple[str, ...]] = {
    "house_edge": ("--ruleset", "hoyle"),
    "strategy": ("--ruleset", "hoyle"),
    "replay": ("{tmp}/one.jsonl", "--no-verify-chain"),
}
# PostgreSQL's alone: on SQLite they say so (on a PostgreSQL database never migrated,
# event_partitions says to migrate: test_event_partitions_on_an_unmigrated_postgresql...)
POSTGRESQL_ONLY: dict[str, tuple[str, ...]] = {
    "db_roles": (),
    "event_partitions": (),
}
# the demo migrates the database itself, its first step
MIGRATES_ITSELF: dict[str, tuple[str, ...]] = {
    "demo": ("--no-serve", "--rounds", "1", "--live-bets", "1", "--folder", "{tmp}/demo"),
}
EVERY = {**NEEDS_THE_DATABASE, **NO_DATABASE, **POSTGRESQL_ONLY, **MIGRATES_ITSELF}

ONE_EVENT = {
    "id": "00000000-0000-4000-8000-000000000001",
    "stream": "T1",
    "type": "table.closed",
    "occurred_at": "2026-11-29T20:00:00Z",
    "actor": "x",
    "source": "y",
    "payload": {"gaming_day": DAY},
}


def _manage(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess:
    """``python manage.py args`` as a shell runs it, the environment's settings replaced
    by ``env`` (a variable given as None is left out)."""
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "DEBUG", "DJANGO_SETTINGS_MODULE"} and k not in env
    }
    environment.update({k: v for k, v in env.items() if v is not None})
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _migrations() -> int:
    """Every migration of the project, all to apply on a file never migrated."""
    from django.db.migrations.loader import MigrationLoader

    return len(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)


def _tables(database: Path) -> list[str]:
    if not database.exists():
        return []
    with sqlite3.connect(database) as db:
        return [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]


def test_every_command_of_the_project_is_in_one_of_the_lists() -> None:
    """A new command must say here what it does on a database never migrated."""
    ours = sorted(name for name, app in get_commands().items() if app in APPS)
    assert sorted(EVERY) == ours


@pytest.mark.parametrize("name", sorted(EVERY))
def test_every_command_on_a_database_never_migrated(name: str, tmp_path: Path) -> None:
    """Run as the shell runs it, on an empty SQLite file: the commands that need the
    database exit 2 with the one line naming it and "run manage.py migrate" - no
    traceback; those that need none of it work and leave the file as it was."""
    (tmp_path / "one.jsonl").write_text(json.dumps(ONE_EVENT) + "\n")
    database = tmp_path / "never-migrated.sqlite3"
    database.touch()
    args = [a.format(tmp=tmp_path) for a in EVERY[name]]
    done = _manage(
        name,
        *args,
        DATABASE_URL=f"sqlite:///{database}",
        DIGEST_PUBLISHERS=str(tmp_path / "digests"),
    )
    said = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr, done.stderr
    if name in NEEDS_THE_DATABASE:
        assert done.returncode == 2, done.stderr
        assert said == [
            (
                f"CommandError: the database {database} is not migrated ({_migrations()} "
                "migrations to apply): run manage.py migrate"
            )
        ]
        assert _tables(database) == []
    elif name in NO_DATABASE:
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() and _tables(database) == []
    elif name in POSTGRESQL_ONLY:
        assert done.returncode == 2
        assert said == [
            f"CommandError: {name}: the database is sqlite; "
            + ("roles" if name == "db_roles" else "the event table's partitions")
            + " are PostgreSQL's"
            + said[0].split("PostgreSQL's", 1)[1]
        ]
    else:
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == "1/5 migrating the database"
        assert "django_migrations" in _tables(database)


@pytest.mark.django_db
def test_event_partitions_on_an_unmigrated_postgresql_database_says_to_migrate(
    on_postgres, tmp_path
) -> None:
    """On PostgreSQL a database never migrated has no partitioned event table: migrate
    makes it, and that is what the command says (not that partitions are PostgreSQL's)."""
    import psycopg
    from django.db import connection

    settings = connection.settings_dict
    empty = f"{settings['NAME']}_never_migrated"
    server = {
        "host": settings["HOST"] or "127.0.0.1",
        "port": settings["PORT"] or 5432,
        "user": settings["USER"],
        "password": settings["PASSWORD"] or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **server) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{empty}"')
        admin.execute(f'CREATE DATABASE "{empty}"')
        try:
            url = (
                f"postgresql://{server['user']}:{server['password'] or ''}@{server['host']}:"
                f"{server['port']}/{empty}"
            )
            done = _manage("event_partitions", DATABASE_URL=url, DEBUG="true")
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{empty}"')
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert f"the database {empty} is not migrated" in done.stderr
    assert done.stderr.strip().endswith("run manage.py migrate")


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("C.UTF-8", "is not migrated ({n} migrations to apply): run manage.py migrate"),
        ("it_IT.UTF-8", "non è migrato ({n} migrazioni da applicare): esegui manage.py migrate"),
        ("cs_CZ.UTF-8", "není migrovaná (chybí {n} migrací): spusťte manage.py migrate"),
    ],
)
def test_the_answer_to_a_database_never_migrated_in_the_locale_s_language(
    lang: str, expected: str, tmp_path: Path
) -> None:
    """Written out by hand in each language (Czech: the plural form for five and more)."""
    database = tmp_path / "never-migrated.sqlite3"
    database.touch()
    done = _manage(
        "verify",
        DATABASE_URL=f"sqlite:///{database}",
        DIGEST_PUBLISHERS=str(tmp_path / "digests"),
        LANG=lang,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().endswith(expected.format(n=_migrations())), done.stderr


# --- settings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"DATABASE_URL": "", "SECRET_KEY": None},
            (
                "settings: DATABASE_URL is set but empty: unset it for the checkout's SQLite file, "
                "or set it to a database URL such as postgresql://user@127.0.0.1:5432/blackjack"
            ),
        ),
        (
            {"DATABASE_URL": "sqlite:///{tmp}/db.sqlite3", "SECRET_KEY": None},
            (
                "settings: SECRET_KEY is not set: a deployment (DATABASE_URL set, DEBUG off) needs a "
                "long random SECRET_KEY of its own "
                "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))')"
            ),
        ),
        (
            {"DATABASE_URL": "postgres-ish://h/db"},
            (
                "settings: DATABASE_URL is not a database URL: no database has the scheme "
                "'postgres-ish'; expected e.g. postgresql://user:password@127.0.0.1:5432/blackjack "
                "or sqlite:///path/to/db.sqlite3"
            ),
        ),
        (
            # a password with an unquoted @: never echoed
            {"DATABASE_URL": "postgresql://bj:s3cr@t@127.0.0.1:port/db"},
            (
                "settings: DATABASE_URL is not a database URL: it cannot be read (a password holding "
                "@, : or / must be percent-encoded); expected e.g. "
                "postgresql://user:password@127.0.0.1:5432/blackjack or sqlite:///path/to/db.sqlite3"
            ),
        ),
        (
            {"DATABASE_URL": "sqlite:///{tmp}/db.sqlite3", "DEBUG": "maybe"},
            "settings: DEBUG='maybe': expected one of true/false/1/0/yes/no/on/off",
        ),
    ],
)
def test_a_settings_error_is_one_line_and_exit_2(env, line, tmp_path) -> None:
    """Any command - here verify, a database command, and strategy, which needs none."""
    env = {k: (v.format(tmp=tmp_path) if v else v) for k, v in env.items()}
    for command in (("verify",), ("strategy", "--ruleset", "hoyle")):
        done = _manage(*command, **env)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")
        assert "s3cr" not in done.stderr


def test_a_settings_error_with_traceback_asked_shows_it(tmp_path) -> None:
    done = _manage(
        "verify", "--traceback", DATABASE_URL=f"sqlite:///{tmp_path}/db", SECRET_KEY=None
    )
    assert done.returncode == 1 and "Traceback" in done.stderr
    assert done.stderr.strip().endswith("print(secrets.token_urlsafe(50))')")


def test_env_database_reads_the_url_or_the_default(monkeypatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from casino.env import env_database

    monkeypatch.delenv("BJ_TEST_DB", raising=False)
    assert env_database("BJ_TEST_DB", "sqlite:////tmp/x.sqlite3")["NAME"] == "/tmp/x.sqlite3"
    monkeypatch.setenv("BJ_TEST_DB", " postgresql://u@db.example:6543/bj ")
    parsed = env_database("BJ_TEST_DB", "sqlite:////tmp/x.sqlite3", conn_max_age=60)
    assert (parsed["HOST"], parsed["PORT"], parsed["NAME"], parsed["CONN_MAX_AGE"]) == (
        "db.example",
        6543,
        "bj",
        60,
    )
    for raw in ("", "  ", "nope", "ftp://x/y"):
        monkeypatch.setenv("BJ_TEST_DB", raw)
        with pytest.raises(ImproperlyConfigured, match=r"^BJ_TEST_DB is (set but empty|not a)"):
            env_database("BJ_TEST_DB", "sqlite:////tmp/x.sqlite3")


# --- messages that name the option to use ------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ("statistics", "--from", DAY, "--to", DAY),
            (
                "report statistics: --from and --to make a range: add --period range "
                "(the default, --period day, takes --day D)"
            ),
        ),
        (
            ("statistics", "--period", "mtd", "--from", DAY, "--to", DAY),
            (
                "report statistics: --period mtd takes --day D, the day it ends on; --from and --to "
                "go with --period range"
            ),
        ),
        (
            ("statistics",),
            (
                "report statistics: --period day needs --day YYYY-MM-DD, the day it ends on "
                "(or --period range --from D --to D)"
            ),
        ),
        (
            ("statistics", "--period", "range", "--from", DAY),
            "report statistics: --period range needs --from and --to (YYYY-MM-DD)",
        ),
        (
            ("statistics", "--period", "week", "--day", DAY),
            "report statistics: --period 'week': expected one of shift, day, mtd, ytd, range",
        ),
        (
            ("hold", "--day", DAY),
            "report hold needs --from and --to (YYYY-MM-DD; one day: --from D --to D)",
        ),
        (("drop", "--from", "2026-11-30", "--to", DAY), "--from 2026-11-30 is after --to " + DAY),
    ],
)
def test_report_names_the_options_to_use(args, line) -> None:
    code, out, err = run_command("report", *args)
    assert (code, out, err) == (2, "", line)


@pytest.mark.django_db
def test_reconcile_with_nothing_to_reconcile_names_the_days_and_tables_there_are() -> None:
    from ledger import models as m

    code, _, err = run_command("reconcile")
    assert code == 2 and "(today's gaming day: --day YYYY-MM-DD for another)" in err
    assert err.endswith("; it has none yet (ingest a day's events, then manage.py catch_up)")
    code, _, err = run_command("reconcile", "--table", "BJ-09")
    assert (code, err) == (2, "--table 'BJ-09': the ledger has no such table (none yet)")
    m.LedgerTable.objects.create(stream="BJ-02")
    m.LedgerTable.objects.create(stream="BJ-01")
    code, _, err = run_command("reconcile", "--table", "BJ-09")
    assert (code, err) == (2, "--table 'BJ-09': the ledger has no such table (BJ-01, BJ-02)")


# --- the offline auditor ------------------------------------------------------------------------

PACKAGE = ROOT / "tests" / "package" / "fixtures" / "package-v7.zip"


def _rounds_by_day(package: Path, table: str) -> dict[str, list[int]]:
    """Each gaming day's round numbers of ``table`` in ``package``, read with the zip and
    gzip modules alone (not the auditor's reader)."""
    with zipfile.ZipFile(package) as z:
        manifest = json.loads(z.read("manifest.json"))
        text = gzip.decompress(z.read(manifest["streams"][table]["file"])).decode()
    days: dict[str, list[int]] = {}
    day = None
    for line in text.splitlines():
        event = json.loads(line)
        if event["type"] == "table.opened":
            day = event["payload"]["gaming_day"]
        elif event["type"] == "round.started":
            days.setdefault(day, []).append(event["payload"]["round"])
    return days


def _audit(*args: str, capsys) -> tuple[int, str, str]:
    code = audit_main(list(args))
    said = capsys.readouterr()
    return code, said.out, said.err


def test_a_round_not_in_the_package_is_said_so_with_the_rounds_it_holds(capsys) -> None:
    rounds = _rounds_by_day(PACKAGE, "BJ-02")[DAY]
    low, high = min(rounds), max(rounds)
    assert high > low >= 1
    code, out, err = _audit("round", str(PACKAGE), "BJ-02", DAY, "9999", capsys=capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"blackjack-audit: {PACKAGE}: round 9999 of table BJ-02 is not in the package; "
        f"its rounds on {DAY} are {low} to {high}\n"
    )
    assert "cannot read" not in err
    code, _, err = _audit("round", str(PACKAGE), "BJ-02", "2026-11-30", str(low), capsys=capsys)
    assert code == 2 and err == (
        f"blackjack-audit: {PACKAGE}: round {low} of table BJ-02 was played on gaming day {DAY}, "
        f"not 2026-11-30; it holds no round of the table on gaming day 2026-11-30, but "
        f"{DAY}: {low} to {high}\n"
    )
    code, out, _ = _audit("round", str(PACKAGE), "BJ-02", DAY, str(high), capsys=capsys)
    assert code == 0 and out.startswith(f"Round {high} - table BJ-02, gaming day {DAY}")


def test_the_auditor_blames_a_key_file_not_the_package(tmp_path, capsys) -> None:
    (tmp_path / "key.pem").write_text("not a key\n")
    code, _, err = _audit(
        "verify", str(PACKAGE), "--key", str(tmp_path / "nope.pem"), capsys=capsys
    )
    assert (code, err) == (
        2,
        f"blackjack-audit: --key {tmp_path / 'nope.pem'}: No such file or directory\n",
    )
    code, _, err = _audit("verify", str(PACKAGE), "--key", str(tmp_path / "key.pem"), capsys=capsys)
    assert code == 2 and err.startswith(f"blackjack-audit: --key {tmp_path / 'key.pem'}: ")
    assert "cannot read the package" not in err


def test_the_auditors_keys_line_has_one_pair_of_brackets(capsys) -> None:
    code, out, _ = _audit("verify", str(PACKAGE), "--jobs", "1", capsys=capsys)
    keys = next(line for line in out.splitlines() if line.startswith("keys: "))
    assert code == 0 and keys.endswith(" (the package's own; pin them with --key)")
    assert keys.count("(") == keys.count(")") == 1


# --- the demo's lines ---------------------------------------------------------------------------


def test_the_demo_prints_the_floors_address_only_where_it_serves() -> None:
    logins = DemoLogins("demo", "pw-123", "tok-456", "BJ-05")
    package = DemoPackage(Path("/x/package.zip"), date(2026, 11, 29), date(2026, 11, 30))
    served = ready_lines(logins, package, addr="127.0.0.1:8123", served=True, auditor="ba")
    assert served[0] == "  the floor  http://127.0.0.1:8123/admin/   login: demo  password: pw-123"
    assert any(
        "'http://127.0.0.1:8123/api/streams/BJ-05/events?limit=3'" in line for line in served
    )
    quiet = ready_lines(logins, package, addr="127.0.0.1:8123", served=False, auditor="ba")
    assert not any("http" in line or "8123" in line for line in quiet)
    assert quiet[:2] == [
        "  not served (--no-serve): python manage.py runserver serves it (the floor: the admin's home)",
        "  login      demo  password: pw-123",
    ]
    # both: the device's token and the auditor's commands on the package
    for lines in (served, quiet):
        assert "  device     table BJ-05, token tok-456" in lines
        assert lines[-1] == "  recall     ba round /x/package.zip BJ-05 2026-11-29 1"
