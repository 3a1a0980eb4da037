"""The one report shape's CSV: every money column as the formatter's text, as a number in
currency units and in minor units; totals rows per currency, never adding currencies."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from audit.presenting.reports import TOTAL, Column, Report

COLUMNS = (
    Column("table", "table"),
    Column("currency", "currency"),
    Column("drop", "drop", "money", total=True),
    Column("win", "win", "signed", total=True),
    Column("sd", "SD", "money"),
    Column("hold", "hold", "rate"),
    Column("rounds", "rounds", "int", total=True),
)


def lines(report: Report) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(report.as_csv())))


def test_each_money_column_is_text_a_number_in_currency_units_and_minor_units() -> None:
    report = Report(
        "r",
        "r",
        COLUMNS,
        [
            {
                "table": "BJ-01",
                "currency": "EUR",
                "drop": 3_520_000,
                "win": -2_500,
                "sd": None,
                "hold": Fraction(1, 8),
                "rounds": 3,
            },
            {
                "table": "JP-01",
                "currency": "JPY",
                "drop": 35_200,
                "win": 100,
                "sd": 7,
                "hold": None,
                "rounds": 1,
            },
            {
                "table": "KW-01",
                "currency": "KWD",
                "drop": 1_234,
                "win": -7,
                "sd": 1,
                "hold": None,
                "rounds": 2,
            },
        ],
    )
    eur, jpy, kwd = lines(report)
    assert list(eur)[:8] == [
        "table",
        "currency",
        "drop",
        "drop_amount",
        "drop_minor",
        "win",
        "win_amount",
        "win_minor",
    ]
    assert (eur["drop"], eur["drop_amount"], eur["drop_minor"]) == (
        "EUR 35,200.00",
        "35200.00",
        "3520000",
    )
    assert (eur["win"], eur["win_amount"], eur["win_minor"]) == ("-EUR 25.00", "-25.00", "-2500")
    assert (eur["sd"], eur["sd_amount"], eur["sd_minor"], eur["hold"], eur["hold_bp"]) == (
        "n/a",
        "",
        "",
        "12.5%",
        "1250",
    )
    assert (jpy["drop"], jpy["drop_amount"]) == ("JPY 35,200", "35200")
    assert (kwd["drop_amount"], kwd["win_amount"]) == ("1.234", "-0.007")
    assert report.totals == []  # none asked for


def test_totals_are_per_currency_and_add_only_the_total_columns() -> None:
    """Two EUR rows and one JPY row: two totals rows, each the sum of its own rows; the
    SD (not additive) is left blank; a figure not known is not added as 0."""
    report = Report(
        "r",
        "r",
        COLUMNS,
        [
            {
                "table": "BJ-01",
                "currency": "EUR",
                "drop": 900_000,
                "win": 400_000,
                "sd": 5,
                "rounds": 3,
            },
            {
                "table": "BJ-02",
                "currency": "EUR",
                "drop": None,
                "win": -150_050,
                "sd": 5,
                "rounds": 4,
            },
            {"table": "JP-01", "currency": "JPY", "drop": 35_200, "win": 100, "sd": 7, "rounds": 1},
        ],
    ).with_totals(
        lambda currency, rows: {
            "hold": Fraction(sum(r["win"] for r in rows), sum(r["drop"] or 0 for r in rows))
        }
    )
    *_, eur, jpy = lines(report)
    assert (
        eur["table"],
        eur["currency"],
        eur["drop_amount"],
        eur["win_amount"],
        eur["rounds"],
    ) == (TOTAL, "EUR", "9000.00", "2499.50", "7")
    assert (eur["sd"], eur["sd_amount"], eur["hold"]) == ("", "", "27.8%")  # 2,499.50 / 9,000.00
    assert (jpy["table"], jpy["currency"], jpy["drop_amount"], jpy["win"], jpy["rounds"]) == (
        TOTAL,
        "JPY",
        "35200",
        "+JPY 100",
        "1",
    )
    body = report.as_json()
    assert [t["currency"] for t in body["totals"]] == ["EUR", "JPY"]
    assert body["totals"][0]["display"]["win"] == "+EUR 2,499.50"


def test_a_column_no_row_knows_totals_to_not_known() -> None:
    report = Report(
        "r",
        "r",
        COLUMNS,
        [{"table": "L-1", "currency": "EUR", "drop": None, "win": 5, "rounds": 1}],
    ).with_totals()
    [total] = report.totals
    assert total["drop"] is None and report.display(total, COLUMNS[2]) == "n/a"


def test_an_amount_column_is_the_number_alone() -> None:
    """A general ledger's debit and credit: only the decimal number."""
    report = Report(
        "gl",
        "gl",
        (
            Column("account", "account"),
            Column("currency", "currency"),
            Column("debit", "debit", "amount", total=True),
        ),
        [{"account": "cage", "currency": "EUR", "debit": 123_456}],
    ).with_totals()
    assert report.as_csv().splitlines() == [
        "account,currency,debit",
        "cage,EUR,1234.56",
        "total,EUR,1234.56",
    ]


@given(
    st.lists(
        st.tuples(st.sampled_from(["EUR", "JPY", "KWD"]), st.integers(-(10**15), 10**15)),
        min_size=1,
        max_size=30,
    )
)
def test_the_numeric_totals_foot_the_numeric_rows(rows: list[tuple[str, int]]) -> None:
    """Read back as decimals, each currency's total is the sum of its rows' numbers."""
    report = Report(
        "r",
        "r",
        COLUMNS[:3],
        [{"table": f"T{i}", "currency": c, "drop": a} for i, (c, a) in enumerate(rows)],
    ).with_totals()
    read = lines(report)
    body, totals = read[: len(rows)], read[len(rows) :]
    assert sorted(t["currency"] for t in totals) == sorted({c for c, _ in rows})
    for total in totals:
        assert Decimal(total["drop_amount"]) == sum(
            Decimal(r["drop_amount"]) for r in body if r["currency"] == total["currency"]
        )
        assert int(total["drop_minor"]) == sum(a for c, a in rows if c == total["currency"])
