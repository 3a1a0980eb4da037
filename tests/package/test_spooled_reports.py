"""The auditor's spooled reports: written a table's rows at a time, they are byte for byte
the files :func:`auditor.reports.render` makes of all the rows at once (the comparison
with the package's files depends on it)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.layout import REPORTS, json_bytes, json_text
from auditor.reports import Spool, render

ROWS = [
    {
        "table": "BJ-01",
        "gaming_day": "2026-11-29",
        "round": 1,
        "recorded": -500,
        "recomputed": -500,
        "agrees": True,
        "hold": "12.50",
        "trail": [{"who": "boss", "note": 'line\nbreak, "quoted" \u2028 é'}, {"empty": {}}],
    },
    {
        "table": "BJ-01",
        "gaming_day": "2026-11-29",
        "round": 2,
        "recorded": None,
        "bets": [],
        "message": "a,b",
    },
    {
        "table": "BJ-02",
        "gaming_day": "2026-11-29",
        "round": 1,
        "stakes": 0,
        "agrees": False,
        "expected": "x",
    },
]


@pytest.mark.parametrize("name", REPORTS)
@pytest.mark.parametrize(
    "batches", [[], [[]], [ROWS[:1], [], ROWS[1:]], [ROWS], [[r] for r in ROWS]]
)
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


_VALUES = st.one_of(
    st.text(),
    st.integers(),
    st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1),
    st.booleans(),
    st.none(),
    st.floats(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.booleans(), max_size=2),
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(), _VALUES, max_size=8))
def test_a_row_is_written_as_the_indented_standard_encoder_writes_it(row) -> None:
    """A row's JSON (msgspec's where every value is text, a 64-bit integer, a boolean or
    null) is the standard library's ``json.dumps(sort_keys=True, indent=1,
    ensure_ascii=False)``, byte for byte: escapes, non-ASCII text, key order, nesting."""
    assert json_text(row) == json.dumps(row, sort_keys=True, indent=1, ensure_ascii=False)


def test_a_round_row_is_written_as_before() -> None:
    row = {
        "table": "BJ-01",
        "gaming_day": "2026-11-29",
        "round": 1,
        "shoe": 3,
        "status": "settled",
        "first_version": 10,
        "last_version": 40,
        "bets": 3,
        "stakes": 1500,
        "recorded": -500,
        "recomputed": None,
        "agrees": True,
        "note": '\u2028\x1f\x7f"\\\u00e9\n',
    }
    assert json_text(row) == json.dumps(row, sort_keys=True, indent=1, ensure_ascii=False)
    assert json_text({}) == "{}"
    assert (
        json_bytes(row)
        == (json.dumps(row, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    )
