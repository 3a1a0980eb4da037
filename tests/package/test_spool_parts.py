"""A spool that takes parts (``Spool(part=True)``: the rows a worker wrote of one table,
the round report's) writes byte for byte what :func:`auditor.reports.render` makes of
all the rows at once, whether the parts come first, between rows added, or empty."""

from __future__ import annotations

import io

import pytest

from auditor.layout import REPORTS
from auditor.reports import Spool, render

from .test_spooled_reports import ROWS


def _part(
    name: str, version: int, rows: list[dict], compared: bool
) -> tuple[io.BytesIO, io.BytesIO, int]:
    csv, json = io.BytesIO(), io.BytesIO()
    part = Spool(name, version, files=(csv, json), compared=compared, part=True)
    part.add(rows)
    csv.seek(0)
    json.seek(0)
    return csv, json, part.rows


@pytest.mark.parametrize("name", REPORTS)
@pytest.mark.parametrize(
    "steps",
    [
        [("part", ROWS)],
        [("part", [])],
        [("part", []), ("part", ROWS[:1]), ("add", ROWS[1:])],
        [("add", ROWS[:1]), ("part", ROWS[1:2]), ("part", []), ("part", ROWS[2:])],
        [("add", []), ("part", ROWS)],
    ],
)
@pytest.mark.parametrize(("version", "compared"), [(1, True), (2, False), (3, True)])
def test_a_spool_of_parts_is_the_rendered_files(name, steps, version, compared) -> None:
    spool = Spool(name, version, compared=compared)
    try:
        for how, rows in steps:
            if how == "part":
                spool.take(*_part(name, version, rows, compared))
            else:
                spool.add(rows)
        files = spool.finish()
        every = [row for _, rows in steps for row in rows]
        assert {kind: stream.read() for kind, stream in files.items()} == render(
            name, every, version, compared=compared
        )
        assert spool.rows == len(every)
    finally:
        spool.close()
