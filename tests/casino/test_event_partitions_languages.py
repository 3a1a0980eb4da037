"""``manage.py event_partitions`` in the shell's language (on SQLite: its refusals;
what it makes and lists on PostgreSQL is tests/audit/test_partitions.py's)."""

from __future__ import annotations

import pytest

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
