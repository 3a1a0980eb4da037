"""A report as the back-office shows and hands it over: named columns of a kind (text,
money, signed money, rate, int) and rows of plain values - the same rows for the API
(JSON, each money and rate also as text), the CSV (text and minor units, text and basis
points) and the screens. The ledger's reports and the tables' analytics both build
these; money goes through the one formatter (``audit.record.money``)."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from audit.record.money import basis_points, money_text, percent

# a figure that is not known, in reports and the ledger's screens
NOT_KNOWN = "n/a"


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    kind: str = "text"  # text | money | signed | rate | int
    screen: bool = True  # shown on the screen's table (the API and the CSV have every column)


@dataclass(frozen=True)
class Report:
    name: str
    title: str
    columns: tuple[Column, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)

    def display(self, row: dict[str, Any], column: Column) -> str:
        """A cell as a person reads it: money by the one formatter, rates as 44.4%."""
        value = row.get(column.key)
        if column.kind in ("money", "signed"):
            return money_text(value, row["currency"], signed=column.kind == "signed", none=NOT_KNOWN)
        if column.kind == "rate":
            return percent(value)
        return "" if value is None else str(value)

    def as_json(self) -> dict[str, Any]:
        def plain(value: Any) -> Any:
            return percent(value) if isinstance(value, Fraction) else value

        return {
            "report": self.name, "title": self.title, "parameters": self.parameters,
            "columns": [{"key": c.key, "title": c.title, "kind": c.kind} for c in self.columns],
            "rows": [{**{k: plain(v) for k, v in row.items()},
                      "display": {c.key: self.display(row, c) for c in self.columns
                                  if c.kind in ("money", "signed", "rate")}}
                     for row in self.rows],
        }

    def as_csv(self) -> str:
        """One line per row: each money column as text (the one formatter's) and in minor
        units (``<column>_minor``), each rate as text and in basis points (``_bp``)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        header = []
        for c in self.columns:
            header.append(c.key)
            if c.kind in ("money", "signed"):
                header.append(f"{c.key}_minor")
            elif c.kind == "rate":
                header.append(f"{c.key}_bp")
        writer.writerow(header)
        for row in self.rows:
            line = []
            for c in self.columns:
                line.append(self.display(row, c))
                if c.kind in ("money", "signed"):
                    line.append("" if row.get(c.key) is None else row[c.key])
                elif c.kind == "rate":
                    line.append("" if row.get(c.key) is None else basis_points(row[c.key]))
            writer.writerow(line)
        return out.getvalue()
