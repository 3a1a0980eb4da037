"""A package's report written as its rows come (a table's at a time), so the export holds
one table's rows, not the period's: the CSV and JSON are byte for byte what
:func:`auditor.reports.render` makes of all the rows at once - each batch is rendered by
it and its rows cut out, so the format stays the auditor's alone."""
from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import IO, Any

from auditor import layout
from auditor.reports import render

_ROWS = b'"rows": [\n'  # the JSON's last member (sorted keys), its rows each on lines of their own
_END = b"\n ]\n}\n"


class ReportFiles:
    """``reports/NAME.csv`` and ``reports/NAME.json`` in ``folder``, written by
    :meth:`write` a batch at a time and ended by :meth:`close`."""

    def __init__(self, folder: Path, name: str) -> None:
        self.name = name
        empty = render(name, [])
        self._header = len(empty["csv"])
        self._head = render(name, [{}])["json"].split(_ROWS, 1)[0] + _ROWS
        self._empty_json = empty["json"]
        self._csv: IO[bytes] = (folder / layout.report_file(name, "csv")).open("wb")
        self._json: IO[bytes] = (folder / layout.report_file(name, "json")).open("wb")
        self._csv.write(empty["csv"])
        self._rows = 0

    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        batch = list(rows)
        if not batch:
            return
        files = render(self.name, batch)
        self._csv.write(files["csv"][self._header:])
        body = files["json"]
        if not (body.startswith(self._head) and body.endswith(_END)):
            raise RuntimeError(f"reports/{self.name}.json: the auditor's JSON layout is not the one cut here")
        if self._rows == 0:
            self._json.write(self._head)
        else:
            self._json.write(b",\n")
        self._json.write(body[len(self._head):-len(_END)])
        self._rows += len(batch)

    def write_all(self, rows: Iterable[dict[str, Any]], batch: int = 2000) -> None:
        """Rows from an iterator, ``batch`` in memory at a time."""
        them = iter(rows)
        while chunk := list(islice(them, batch)):
            self.write(chunk)

    def close(self) -> None:
        self._json.write(_END if self._rows else self._empty_json)
        self._csv.close()
        self._json.close()
