"""The ledger's configuration: pits by table-code pattern, the shift plan and thresholds
from the settings, read when asked; a bad value stops the process naming the variable."""
from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit import charts
from ledger import config

ROOT = Path(__file__).resolve().parents[2]


def test_a_table_stands_in_the_pit_of_the_first_pattern_it_matches() -> None:
    pits = config.parse_pits("A=BJ-0*,BJ-10;B=BJ-1*")
    assert [config.pit_by_settings(t, pits) for t in ("BJ-01", "BJ-10", "BJ-11", "RO-1")] == ["A", "A", "B", ""]
    for bad in ("A", "=BJ-1", "A=", "A b c d e f g h i j k l m n o p q r s=BJ"):
        with pytest.raises(ValueError):
            config.parse_pits(bad)


def test_the_shift_plan_and_thresholds_follow_the_settings(settings) -> None:
    settings.LEDGER_SHIFTS, settings.GAMING_DAY_CUTOFF_HOUR, settings.TIME_ZONE = "8h", 4, "Europe/Prague"
    plan = config.shift_plan()
    assert plan.labels == ("04:00", "12:00", "20:00") and plan.zone == "Europe/Prague"
    settings.LEDGER_VARIANCE_REPORT_MINOR, settings.LEDGER_VARIANCE_REGULATOR_MINOR = 100, 200
    assert (config.thresholds().report_above, config.thresholds().regulator_from) == (100, 200)


@pytest.mark.parametrize("env, says", [
    ({"LEDGER_SHIFTS": "7h"}, "LEDGER_SHIFTS='7h'"),
    ({"LEDGER_PITS": "nonsense"}, "LEDGER_PITS='nonsense'"),
    ({"LEDGER_VARIANCE_REPORT_MINOR": "5000", "LEDGER_VARIANCE_REGULATOR_MINOR": "100"},
     "LEDGER_VARIANCE_REGULATOR_MINOR=100"),
])
def test_a_bad_setting_stops_the_process_naming_it(env, says) -> None:
    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'casino.settings'; django.setup()"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode != 0 and says in run.stderr


def test_docstring_examples_hold() -> None:
    for module in (config, charts):  # the charts' axis steps are shared, in audit.charts
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__
