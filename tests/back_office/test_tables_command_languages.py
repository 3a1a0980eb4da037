"""The tables' commands (``replay_day``, ``rebuild_projections``, ``replay``,
``house_edge``, ``strategy``) speak the locale's language (audit.presenting.commands): each
line below written out by hand in Italian and Czech. The rules engine's own text (the
chart, a file's unusable line, a rule set it does not know) stays English: it is pure
Python, without the catalogues."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.casino.test_command_messages import _manage
from tests.commands import run_command

from .helpers import DAY, append, dealt, plant_short_pay


@pytest.fixture
def short_paid(settings) -> None:
    """T1 with one win recorded a unit short, T2 clean; nothing replayed on append."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=30, table="T1")
    plant_short_pay(events)
    append("T1", events)
    append("T2", dealt("vegas-s17-das-ls", rounds=30, table="T2"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "lines", "refused"),
    [
        (
            "it_IT.UTF-8",
            [
                "T1: 30 mani ricalcolate, 1 rilievo (nuovi: 1, sostituiti: 0)",
                "T2: 30 mani ricalcolate, 0 rilievi (nuovi: 0, sostituiti: 0)",
                "rilievi per tipo: wrong_payout 1",
            ],
            "--day 'ieri': atteso AAAA-MM-GG o 'today'",
        ),
        (
            "cs_CZ.UTF-8",
            [
                "T1: 30 her přepočteno, 1 nález (nové: 1, nahrazené: 0)",
                "T2: 30 her přepočteno, 0 nálezů (nové: 0, nahrazené: 0)",
                "nálezy podle druhu: wrong_payout 1",
            ],
            "--day 'ieri': očekáváno RRRR-MM-DD nebo 'today'",
        ),
    ],
)
def test_replay_day_in_the_locale_s_language(short_paid, monkeypatch, lang, lines, refused):
    monkeypatch.setenv("LANG", lang)
    code, out, _ = run_command("replay_day", "--day", DAY.isoformat())
    assert code == 0 and out.splitlines() == lines
    code, _, err = run_command("replay_day", "--day", "ieri")
    assert code == 2 and err == refused


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "rebuilt", "agree"),
    [
        (
            "it_IT.UTF-8",
            "ricostruiti 1 tavolo, 1 giornata del tavolo, ",
            "le righe su cui le persone agiscono del tavolo T1 concordano con i loro eventi",
        ),
        (
            "cs_CZ.UTF-8",
            "sestaveno 1 stůl, 1 den stolu, ",
            "řádky stolu T1, podle kterých lidé jednají, souhlasí se svými událostmi",
        ),
    ],
)
def test_rebuild_projections_in_the_locale_s_language(
    monkeypatch, django_capture_on_commit_callbacks, lang, rebuilt, agree
):
    append("T1", dealt(rounds=12), chunk=50, project=True)
    monkeypatch.setenv("LANG", lang)
    code, out, err = run_command("rebuild_projections", "--stream", "T1")
    first, second = out.splitlines()  # the rows people act on are written first
    assert code == 0 and first == agree and second.startswith(rebuilt), err


@pytest.mark.parametrize(
    ("lang", "first", "total", "help_says"),
    [
        (
            "it_IT.UTF-8",
            (
                "Vantaggio del banco di hoyle con decks=2 (2 mazzi), giocato con la sua strategia "
                "di base: 0,4677%"
            ),
            "  totale              100,0000%      -0,4677%",
            "2 un --ruleset sconosciuto o un --set non valido",
        ),
        (
            "cs_CZ.UTF-8",
            (
                "Výhoda kasina u hoyle s decks=2 (2 balíčky) při hře podle základní strategie: "
                "0,4677\xa0%"
            ),
            "  celkem             100,0000\xa0%     -0,4677\xa0%",
            "2 neznámá --ruleset nebo chybné --set",
        ),
    ],
)
def test_house_edge_and_strategy_from_the_shell(lang, first, total, help_says) -> None:
    done = _manage("house_edge", "--ruleset", "hoyle", "--set", "decks=2", LANG=lang)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[0] == first and lines[-1] == total, done.stderr
    done = _manage("strategy", "--help", LANG=lang)
    assert done.returncode == 0 and help_says in " ".join(done.stdout.split()), done.stdout


def test_house_edge_in_english_as_ever() -> None:
    done = _manage("house_edge", "--ruleset", "hoyle", LANG="C.UTF-8")
    lines = done.stdout.splitlines()
    assert lines[4:6] == ["", "  first decision     probability   player return per unit staked"]
    assert lines[-1].startswith("  total               100.0000%")


@pytest.mark.parametrize(
    ("lang", "unchecked", "unusable"),
    [
        (
            "it_IT.UTF-8",
            "{path}: le catene di hash non sono state verificate (--no-verify-chain)",
            "{path}: input inutilizzabile alla riga 1: ",
        ),
        (
            "cs_CZ.UTF-8",
            "{path}: řetězce hashů nebyly zkontrolovány (--no-verify-chain)",
            "{path}: nepoužitelný vstup na řádku 1: ",
        ),
    ],
)
def test_replay_of_a_file_from_the_shell(tmp_path: Path, lang, unchecked, unusable) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text("not an envelope\n")
    done = _manage("replay", str(path), "--no-verify-chain", LANG=lang)
    said = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert said[0] == unchecked.format(path=path)
    assert said[1].startswith(unusable.format(path=path))
