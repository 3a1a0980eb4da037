"""The demo in the shell's language: its steps, its summary (money and counts the
locale's way), its ready lines and its refusals, written out by hand in Italian and
Czech. The sub-commands' own last lines are theirs (each in the same language)."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import translation

from audit.record.money import in_locale
from casino.demo import DemoLogins, DemoPackage, ready_lines
from tests.casino.test_command_messages import _manage


@pytest.fixture
def italian(monkeypatch) -> None:
    """The environment of ``LANG=it_IT.UTF-8 manage.py ...``: a command's language."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "it_IT.UTF-8")


@pytest.mark.django_db(transaction=True)
def test_the_demo_in_italian(italian, tmp_path) -> None:
    out = io.StringIO()
    call_command("demo", no_serve=True, rounds=1, live_bets=2, folder=str(tmp_path), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "1/5 migrazione del database"
    assert (
        "2/5 simulazione di due giornate di gioco: 7 tavoli, 1 mano ciascuno e 1 mano il "
        "giorno dopo, un'anomalia di ogni tipo inserita"
    ) in lines
    assert "    replay_day --day 2026-11-29: 7 tavoli rieseguiti" in lines
    day = next(line for line in lines if line.startswith("Giornata di gioco 2026-11-29: "))
    assert day.startswith("Giornata di gioco 2026-11-29: 7 mani, ") and day.endswith(" su 7 tavoli")
    assert lines[lines.index(day) + 2].split() == [
        "tavolo", "regolamento", "mani", "puntate", "volume", "puntate", "ris.", "del", "banco",
        "ricalcolato", "%", "volume", "rilievi", "contabilità",
    ]  # fmt: skip
    total = next(line for line in lines if line.startswith("  totale   giornata, EUR"))
    assert "\u00a0€" in total and "EUR " not in total.replace("giornata, EUR", "")
    assert any(line.startswith("  anomalie inserite trovate: ") for line in lines)
    assert any(line.startswith("    trovata ") and " mano 1 -> " in line for line in lines)
    assert "Il back-office del blackjack è pronto." in lines


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("it_IT.UTF-8", "CommandError: --rounds e --live-bets devono essere almeno 1"),
        ("cs_CZ.UTF-8", "CommandError: --rounds a --live-bets musí být alespoň 1"),
    ],
)
def test_the_demo_refuses_in_the_locale_s_language(lang: str, line: str) -> None:
    done = _manage("demo", "--no-serve", "--rounds", "0", LANG=lang)
    assert (done.returncode, done.stderr) == (2, line + "\n")


def test_the_ready_lines_in_czech() -> None:
    logins = DemoLogins("demo", "pw-123", "tok-456", "BJ-05")
    package = DemoPackage(Path("/x/package.zip"), date(2026, 11, 29), date(2026, 11, 30))
    with translation.override("cs"), in_locale("cs"):
        served = ready_lines(logins, package, addr="127.0.0.1:8123", served=True, auditor="ba")
        quiet = ready_lines(logins, package, addr="127.0.0.1:8123", served=False, auditor="ba")
    assert served[0] == "  herní sál  http://127.0.0.1:8123/admin/   uživatel: demo  heslo: pw-123"
    assert "  zařízení   stůl BJ-05, token tok-456" in served
    assert served[-2] == (
        "  regulátor  ba verify /x/package.zip   (herní dny 2026-11-29 až 2026-11-30; "
        "offline, bez Djanga)"
    )
    assert quiet[1] == "  uživatel   demo  heslo: pw-123"
