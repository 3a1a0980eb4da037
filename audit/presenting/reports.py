"""A report as the back-office shows and hands it over: named columns of a kind (text,
money, signed money, amount, rate, int) and rows of plain values - the same rows for the
API (JSON, each money and rate also as text), the CSV and the screens - and, where
totals make sense, one totals row per currency. The ledger's reports and the tables'
analytics all build these; money goes through the one formatter (``audit.record.money``).

The CSV gives each money column three ways: as the formatter's text (``drop``: ``EUR
35,200.00``), as a number in currency units (``drop_amount``: ``35200.00``, exact, from the
integer) and in minor units (``drop_minor``: ``3520000``); an ``amount`` column (a general
ledger's debit or credit) only as the number; each rate as text and in basis points
(``hold_bp``). The totals rows come last, ``total`` in the first column."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from audit.record.money import basis_points, decimal_text, money_text, percent

# a figure that is not known, in reports and the ledger's screens
NOT_KNOWN = "n/a"
# the first column of a totals row
TOTAL = "total"
MONEY_KINDS = ("money", "signed", "amount")


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    kind: str = "text"  # text | money | signed | amount | rate | int | bool (yes/no)
    screen: bool = True  # shown on the screen's table (the API and the CSV have every column)
    total: bool = False  # the column adds up: a totals row carries its sum (money or int)


Row = dict[str, Any]


def totals_by_currency(
    rows: list[Row],
    columns: tuple[Column, ...],
    *,
    more: Callable[[str | None, list[Row]], Row] | None = None,
) -> list[Row]:
    """One totals row per currency of ``rows`` (currencies are never added; a report
    without a currency column has one): ``total`` in the first column, the currency, the
    sum of each ``total`` column, and what ``more(currency, rows)`` adds - a rate computed
    from the sums (hold = total win / total drop, never an average of rates). A sum adds
    the figures that are known; where none is, it is not known either (None)."""
    if not rows:
        return []
    groups: dict[str | None, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.get("currency"), []).append(row)
    out = []
    for currency, group in sorted(groups.items(), key=lambda item: item[0] or ""):
        total: Row = {columns[0].key: TOTAL, "currency": currency}
        for c in columns:
            if c.total:
                known = [row[c.key] for row in group if row.get(c.key) is not None]
                total[c.key] = sum(known) if known else None
        if more is not None:
            total.update(more(currency, group))
        out.append(total)
    return out


@dataclass(frozen=True)
class Report:
    name: str
    title: str
    columns: tuple[Column, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    # one row per currency, after the rows (:func:`totals_by_currency`)
    totals: list[dict[str, Any]] = field(default_factory=list)

    def with_totals(self, more: Callable[[str | None, list[Row]], Row] | None = None) -> Report:
        """The report with its totals rows: the sums of its ``total`` columns per currency
        (and what ``more`` computes from a currency's rows)."""
        return replace(self, totals=totals_by_currency(self.rows, self.columns, more=more))

    def display(self, row: dict[str, Any], column: Column) -> str:
        """A cell as a person reads it: money by the one formatter, rates as 44.4%."""
        value = row.get(column.key)
        if column.kind == "amount":  # a debit or a credit: empty on a line of the other side
            return money_text(value, row["currency"], none="")
        if column.kind in MONEY_KINDS:
            return money_text(
                value, row["currency"], signed=column.kind == "signed", none=NOT_KNOWN
            )
        if column.kind == "rate":
            return percent(value)
        return "" if value is None else str(value)

    def total_display(self, row: dict[str, Any], column: Column) -> str:
        """A totals row's cell: blank in a column it does not total (an opener of several
        days adds up to nothing), else as :meth:`display` shows it."""
        return self.display(row, column) if column.key in row else ""

    def as_json(self) -> dict[str, Any]:
        def plain(value: Any) -> Any:
            return percent(value) if isinstance(value, Fraction) else value

        def shown(row: Row, total: bool = False) -> Row:
            return {
                **{k: plain(v) for k, v in row.items()},
                "display": {
                    c.key: self.display(row, c)
                    for c in self.columns
                    if c.kind in (*MONEY_KINDS, "rate") and (not total or c.key in row)
                },
            }

        return {
            "report": self.name,
            "title": self.title,
            "parameters": self.parameters,
            "columns": [
                {"key": c.key, "title": c.title, "kind": c.kind, "total": c.total}
                for c in self.columns
            ],
            "rows": [shown(row) for row in self.rows],
            "totals": [shown(row, True) for row in self.totals],
        }

    def as_csv(self) -> str:
        """One line per row, then the totals rows: each money column as text (the one
        formatter's), as a number in currency units (``<column>_amount``) and in minor
        units (``<column>_minor``); an amount column as the number only; each rate as
        text and in basis points (``_bp``)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        header = []
        for c in self.columns:
            if c.kind == "amount":
                header.append(c.key)
            elif c.kind in MONEY_KINDS:
                header += [c.key, f"{c.key}_amount", f"{c.key}_minor"]
            elif c.kind == "rate":
                header += [c.key, f"{c.key}_bp"]
            else:
                header.append(c.key)
        writer.writerow(header)
        for row, show in [
            *((r, self.display) for r in self.rows),
            *((r, self.total_display) for r in self.totals),
        ]:
            line: list[Any] = []
            for c in self.columns:
                value = row.get(c.key)
                if c.kind == "amount":
                    line.append(_number(value, row))
                    continue
                if c.kind in ("text", "int"):  # as display() gives them: the value, or nothing
                    line.append("" if value is None else value)
                    continue
                line.append(show(row, c))
                if c.kind in MONEY_KINDS:
                    line += [_number(value, row), "" if value is None else value]
                elif c.kind == "rate":
                    line.append("" if value is None else basis_points(value))
            writer.writerow(line)
        return out.getvalue()


def _number(value: int | None, row: Row) -> str:
    """An amount in currency units as decimal text (empty where not known, the minor
    units where the row has no currency)."""
    if value is None:
        return ""
    currency = row.get("currency")
    return decimal_text(value, currency) if currency else str(value)
