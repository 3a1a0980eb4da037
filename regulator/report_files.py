"""A package's report written as its rows come (a table's at a time), so the export holds
one table's rows, not the period's: the auditor's :class:`auditor.reports.Spool` writing
into the package's own files, so the CSV and JSON are byte for byte what
:func:`auditor.reports.render` makes of all the rows at once and the format stays the
auditor's alone."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

from auditor import layout
from auditor.reports import Spool


class ReportFiles:
    """``reports/NAME.csv`` and ``reports/NAME.json`` in ``folder``, written by
    :meth:`write` a batch at a time and ended by :meth:`close`."""

    def __init__(self, folder: Path, name: str) -> None:
        self.name = name
        csv = (folder / layout.report_file(name, "csv")).open("wb")
        json = (folder / layout.report_file(name, "json")).open("wb")
        self._spool = Spool(name, files=(csv, json))

    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        self._spool.add(list(rows))

    def write_all(self, rows: Iterable[dict[str, Any]], batch: int = 2000) -> None:
        """Rows from an iterator, ``batch`` in memory at a time."""
        them = iter(rows)
        while chunk := list(islice(them, batch)):
            self.write(chunk)

    def close(self) -> None:
        self._spool.finish()
        self._spool.close()
