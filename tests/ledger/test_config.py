"""The ledger's configuration: pits by table-code pattern, the shift plan and thresholds
from the settings, read when asked; a bad value stops the process naming the variable."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit.presenting import charts
from ledger import config

ROOT = Path(__file__).resolve().parents[2]


def test_a_table_stands_in_the_pit_of_the_first_pattern_it_matches() -> None:
    pits = config.parse_pits("A=BJ-0*,BJ-10;B=BJ-1*")
    assert [config.pit_by_settings(t, pits) for t in ("BJ-01", "BJ-10", "BJ-11", "RO-1")] == [
        "A",
        "A",
        "B",
        "",
    ]
    for bad in ("A", "=BJ-1", "A=", "A b c d e f g h i j k l m n o p q r s=BJ"):
        with pytest.raises(ValueError):
            config.parse_pits(bad)


def test_the_shift_plan_and_thresholds_follow_the_settings(settings) -> None:
    settings.LEDGER_SHIFTS, settings.GAMING_DAY_CUTOFF_HOUR, settings.TIME_ZONE = (
        "8h",
        4,
        "Europe/Prague",
    )
    plan = config.shift_plan()
    assert plan.labels == ("04:00", "12:00", "20:00") and plan.zone == "Europe/Prague"
    settings.LEDGER_VARIANCE_THRESHOLDS = "EUR=1.00/2.00"
    assert (config.thresholds("EUR").report_above, config.thresholds("EUR").regulator_from) == (
        100,
        200,
    )


def test_thresholds_are_per_currency_in_its_units(settings) -> None:
    """N.J.A.C. 13:69D-1.21(e)'s $25 / $100 in each currency's units: a currency not named
    takes 25 and 100 of its major unit (JPY 25 is 25 minor units, KWD 25.000 is 25,000)."""
    settings.LEDGER_VARIANCE_THRESHOLDS = "EUR=25.00/100.00; JPY=3000/12000"
    got = {
        c: (config.thresholds(c).report_above, config.thresholds(c).regulator_from)
        for c in ("EUR", "JPY", "KWD", "USD")
    }
    assert got == {
        "EUR": (2_500, 10_000),
        "JPY": (3_000, 12_000),
        "KWD": (25_000, 100_000),
        "USD": (2_500, 10_000),
    }
    for bad, says in (
        ("EUR=25.001/100", "EUR has 2 decimals"),
        ("JPY=25.5/100", "JPY has 0 decimals"),
        ("EUR=100/25", "at least"),
        ("EUR=25", "CURRENCY=REPORT/REGULATOR"),
        ("eur=1/2", "ISO 4217"),
        ("EUR=1/2;EUR=3/4", "twice"),
        ("EUR=-1/2", "an amount"),
    ):
        with pytest.raises(ValueError, match=says):
            config.parse_thresholds(bad)


@pytest.mark.parametrize(
    "env, says",
    [
        ({"LEDGER_SHIFTS": "7h"}, "LEDGER_SHIFTS='7h'"),
        ({"LEDGER_PITS": "nonsense"}, "LEDGER_PITS='nonsense'"),
        ({"LEDGER_VARIANCE_THRESHOLDS": "EUR=100/25"}, "LEDGER_VARIANCE_THRESHOLDS='EUR=100/25'"),
        (
            {"LEDGER_VARIANCE_REPORT_MINOR": "5000"},
            "LEDGER_VARIANCE_REPORT_MINOR is no longer read",
        ),
    ],
)
def test_a_bad_setting_stops_the_process_naming_it(env, says) -> None:
    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'casino.settings'; django.setup()"
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode != 0 and says in run.stderr


def test_docstring_examples_hold() -> None:
    for module in (config, charts):  # the charts' axis steps are shared, in audit.presenting.charts
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__
