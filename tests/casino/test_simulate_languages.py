"""``manage.py simulate`` in the shell's language: its errors, its summary line (counts
and seconds the locale's way) and its --help, written out by hand in Italian and Czech."""

from __future__ import annotations

import re

import pytest

from tests.casino.test_command_messages import _manage

NBSP = "\u00a0"  # Czech groups thousands with a no-break space


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("it_IT.UTF-8", "CommandError: simulate: --jobs deve essere almeno 1"),
        ("cs_CZ.UTF-8", "CommandError: simulate: --jobs musí být alespoň 1"),
        ("C.UTF-8", "CommandError: simulate: --jobs must be at least 1"),
    ],
)
def test_a_bad_option_is_said_in_the_locale_s_language(lang: str, line: str) -> None:
    done = _manage("simulate", "--jobs", "0", "--out", "x.jsonl", LANG=lang)
    assert (done.returncode, done.stderr) == (2, line + "\n")


@pytest.mark.parametrize(
    ("lang", "summary", "not_planted"),
    [
        (
            "it_IT.UTF-8",
            (
                r"6 mani, 8\.205 eventi su 2 tavoli in {out} in \d+,\d s \(\d+ mani/s\); "
                r"anomalie inserite: 0"
            ),
            "simulate: overpay@BJ-02:2 non è stata inserita: ",
        ),
        (
            "cs_CZ.UTF-8",
            (
                rf"6 her, událostí: 8{NBSP}205, stolů: 2, do: {{out}} za \d+,\d s "
                r"\(\d+ her/s\); vložených chyb: 0"
            ),
            "simulate: overpay@BJ-02:2 nebyla vložena: ",
        ),
        (
            "C.UTF-8",
            (
                r"6 rounds, 8,205 events on 2 tables into {out} in \d+\.\d s "
                r"\(\d+ rounds/s\); 0 faults planted"
            ),
            "simulate: overpay@BJ-02:2 was not planted: ",
        ),
    ],
)
def test_the_summary_line_in_the_locale_s_language(lang, summary, not_planted, tmp_path) -> None:
    """Counts and seconds the locale's way; the simulator's reason a fault was not
    planted stays its own (English) text."""
    out = tmp_path / "day.jsonl"
    done = _manage(
        "simulate",
        *("--tables", "2", "--rounds", "3", "--seed", "x", "--out", str(out)),
        *("--fault", "overpay@BJ-02:2"),
        LANG=lang,
    )
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(summary.format(out=re.escape(str(out))), done.stdout.strip()), done.stdout
    assert done.stderr == not_planted + "no round of the table allowed it\n"


def test_the_help_in_italian() -> None:
    done = _manage("simulate", "--help", LANG="it_IT.UTF-8")
    text = " ".join(done.stdout.split())  # argparse wraps the lines
    assert "Simula giornate di gioco di tavoli di blackjack come eventi" in text
    assert "--rounds ROUNDS mani per tavolo e giornata di gioco" in text
    assert "--check: l'audit e il manifest differiscono" in text  # an exit code's
