"""A report written a batch at a time is byte for byte the auditor's rendering of all its
rows at once, whatever the batches (none, empty ones, one row each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor import layout
from auditor.reports import COLUMNS, render
from regulator.report_files import ReportFiles


def _rows(name: str, count: int) -> list[dict]:
    """Rows with every column set, the awkward values among them: None, a list and a
    dict (JSON in a CSV cell), text with a comma, a quote, a line separator (U+2028,
    which JSON keeps as it is) and non-Latin letters."""
    odd = [
        "a,b",
        'say "no"',
        "line\u2028separator",
        "Zürich €",
        None,
        [1, {"b": 2, "a": [3]}],
        {"z": None},
    ]
    return [
        {
            column: (number if index % 3 == 0 else odd[(number + index) % len(odd)])
            for index, column in enumerate(COLUMNS[name])
        }
        for number in range(count)
    ]


@pytest.mark.parametrize("name", sorted(COLUMNS))
@pytest.mark.parametrize("batches", [(), (0,), (1,), (5,), (2, 0, 3), (1, 1, 1, 1)])
def test_rows_written_in_batches_are_the_rendering_of_all_of_them(
    tmp_path: Path, name: str, batches: tuple[int, ...]
) -> None:
    (tmp_path / "reports").mkdir()
    rows = _rows(name, sum(batches))
    files = ReportFiles(tmp_path, name)
    done = 0
    for size in batches:
        files.write(rows[done : done + size])
        done += size
    files.close()
    expected = render(name, rows)
    assert (tmp_path / layout.report_file(name, "csv")).read_bytes() == expected["csv"]
    assert (tmp_path / layout.report_file(name, "json")).read_bytes() == expected["json"]


def test_rows_from_an_iterator_are_taken_a_batch_at_a_time(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    rows = _rows("access", 7)
    taken: list[int] = []

    def given():
        for number, row in enumerate(rows):
            taken.append(number)
            yield row

    files = ReportFiles(tmp_path, "access")
    written: list[int] = []
    real = files.write
    files.write = lambda batch: (written.append(len(batch)), real(batch))  # type: ignore[method-assign]
    files.write_all(given(), batch=3)
    files.close()
    assert written == [3, 3, 1] and taken == list(range(7))
    assert (tmp_path / "reports/access.json").read_bytes() == render("access", rows)["json"]
