"""The auditor's spooled reports: written a table's rows at a time, they are byte for byte
the files :func:`auditor.reports.render` makes of all the rows at once (the comparison
with the package's files depends on it)."""
from __future__ import annotations

import pytest

from auditor.layout import REPORTS
from auditor.reports import Spool, render

ROWS = [
    {"table": "BJ-01", "gaming_day": "2026-11-29", "round": 1, "recorded": -500, "recomputed": -500, "agrees": True,
     "hold": "12.50", "trail": [{"who": "boss", "note": "line\nbreak, \"quoted\" \u2028 é"}, {"empty": {}}]},
    {"table": "BJ-01", "gaming_day": "2026-11-29", "round": 2, "recorded": None, "bets": [], "message": "a,b"},
    {"table": "BJ-02", "gaming_day": "2026-11-29", "round": 1, "stakes": 0, "agrees": False, "expected": "x"},
]


@pytest.mark.parametrize("name", REPORTS)
@pytest.mark.parametrize("batches", [[], [[]], [ROWS[:1], [], ROWS[1:]], [ROWS], [[r] for r in ROWS]])
@pytest.mark.parametrize("version", [1, 2])
def test_spooled_files_are_the_rendered_ones(name, batches, version) -> None:
    spool = Spool(name, version)
    try:
        for rows in batches:
            spool.add(rows)
        files = spool.finish()
        rendered = render(name, [row for rows in batches for row in rows], version)
        assert {kind: stream.read() for kind, stream in files.items()} == rendered
        assert spool.rows == sum(len(rows) for rows in batches)
    finally:
        spool.close()
