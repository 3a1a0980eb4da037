"""``manage.py event_partitions`` in the shell's language (on SQLite: its refusals;
what it makes and lists on PostgreSQL is tests/audit/test_partitions.py's)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.casino.test_command_messages import _manage


@pytest.mark.parametrize(
    ("lang", "args", "line"),
    [
        (
            "it_IT.UTF-8",
            (),
            (
                "event_partitions: il database è sqlite; le partizioni della tabella degli "
                "eventi sono di PostgreSQL (DATABASE_URL=postgresql://...)"
            ),
        ),
        (
            "cs_CZ.UTF-8",
            (),
            (
                "event_partitions: databáze je sqlite; oddíly tabulky událostí jsou věcí "
                "PostgreSQL (DATABASE_URL=postgresql://...)"
            ),
        ),
        (
            "it_IT.UTF-8",
            ("--detach", "2026-11-31", "--package", "p.zip"),
            "--detach '2026-11-31': attesa una giornata di gioco, AAAA-MM-GG",
        ),
        (
            "cs_CZ.UTF-8",
            ("--create-ahead", "400"),
            "--create-ahead 400: očekáváno 0 až 366 dní",
        ),
        ("cs_CZ.UTF-8", ("--package", "p.zip"), "--package patří k --detach"),
    ],
)
def test_event_partitions_refuses_in_the_locale_s_language(lang, args, line) -> None:
    done = _manage("event_partitions", *args, LANG=lang)
    assert (done.returncode, done.stderr) == (2, f"CommandError: {line}\n")


@pytest.fixture
def partitioned(monkeypatch):
    """A partitioned PostgreSQL event table, as far as the command can tell: what it
    makes and lists is written out by hand below (the real thing is PostgreSQL's, in
    tests/audit/test_partitions.py)."""
    from types import SimpleNamespace

    from casino.management.commands import event_partitions

    monkeypatch.setattr(event_partitions.connection, "vendor", "postgresql")
    monkeypatch.setattr(event_partitions, "is_partitioned", lambda connection: True)
    monkeypatch.setattr(
        event_partitions, "make_ahead", lambda connection, days: ["audit_event_20261201"] * days
    )
    monkeypatch.setattr(
        event_partitions,
        "partitions",
        lambda connection: [
            SimpleNamespace(
                name="audit_event_default", day=None, low=None, high=None, rows=12345, bytes=5 << 19
            )
        ],
    )
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)

    def run(lang: str) -> list[str]:
        monkeypatch.setenv("LANG", lang)
        out = io.StringIO()
        call_command("event_partitions", "--create-ahead", "2", stdout=out)
        return out.getvalue().splitlines()

    return run


@pytest.mark.parametrize(
    ("lang", "made", "listed"),
    [
        (
            "C.UTF-8",
            "made 2 partition(s): audit_event_20261201, audit_event_20261201",
            ("default", "~12,345", "rows", "2.5"),
        ),
        (
            "it_IT.UTF-8",
            "2 partizioni create: audit_event_20261201, audit_event_20261201",
            ("predefinita", "~12.345", "righe", "2,5"),
        ),
        (
            "cs_CZ.UTF-8",
            "vytvořeny 2 oddíly: audit_event_20261201, audit_event_20261201",
            ("výchozí", "~12\u00a0345", "řádků", "2,5"),
        ),
    ],
)
def test_what_it_made_and_lists_in_the_locale_s_language(partitioned, lang, made, listed) -> None:
    """The partition's line keeps its columns: name, bounds, rows, size (MiB)."""
    when, rows, unit, size = listed
    line = f"{'audit_event_default':24} {when:40} {rows:>12} {unit} {size:>10} MiB"
    assert partitioned(lang) == [made, line]
