"""The one money formatter: ISO 4217 minor units, thousands separators, a minus sign."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.record import money
from audit.record.money import format_money, format_signed, minor_unit_digits


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        (123_450, "EUR", "EUR 1,234.50"),
        (-2_500, "EUR", "-EUR 25.00"),
        (123_400, "CZK", "CZK 1,234.00"),
        (0, "USD", "USD 0.00"),
        (7, "GBP", "GBP 0.07"),
        (-7, "GBP", "-GBP 0.07"),
        (123_456_789, "USD", "USD 1,234,567.89"),
        (1_235, "JPY", "JPY 1,235"),
        (-1_000_000, "KRW", "-KRW 1,000,000"),
        (1_234_567, "KWD", "KWD 1,234.567"),
        (5, "CLF", "CLF 0.0005"),
    ],
)
def test_money_is_shown_in_the_currency_s_minor_units(
    amount: int, currency: str, text: str
) -> None:
    assert format_money(amount, currency) == text


def test_a_house_result_shows_its_sign() -> None:
    """Positive house results carry a plus sign, negatives a minus, zero neither."""
    assert format_signed(4_000, "EUR") == "+EUR 40.00"
    assert format_signed(-4_000, "EUR") == "-EUR 40.00"
    assert format_signed(0, "EUR") == "EUR 0.00"


@pytest.mark.parametrize("bad", [12.5, True, "100"])
def test_a_float_a_bool_or_a_text_is_not_money(bad: object) -> None:
    with pytest.raises(TypeError):
        format_money(bad, "EUR")  # type: ignore[arg-type]


@pytest.mark.parametrize("code", ["eur", "EURO", "", "E1R"])
def test_a_currency_that_is_not_an_iso_code_is_refused_by_name(code: str) -> None:
    with pytest.raises(ValueError, match="ISO 4217"):
        format_money(100, code)


@given(
    st.integers(min_value=-(2**53), max_value=2**53), st.sampled_from(["EUR", "JPY", "KWD", "CZK"])
)
def test_the_text_reads_back_to_the_same_amount(amount: int, currency: str) -> None:
    """Dropping the code, the separators and the point gives back the integer."""
    text = format_money(amount, currency)
    digits = text.replace(currency + " ", "").replace(",", "").replace(".", "")
    assert int(digits) == amount
    fraction = text.rpartition(".")[2] if "." in text else ""
    assert len(fraction) == minor_unit_digits(currency)


def test_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(money)
    assert tried > 0 and failed == 0


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        (3_520_000, "EUR", "35200.00"),
        (-2_500, "EUR", "-25.00"),
        (0, "EUR", "0.00"),
        (5, "USD", "0.05"),
        (35_200, "JPY", "35200"),
        (-1_000_000, "KRW", "-1000000"),
        (1_234, "KWD", "1.234"),
        (-7, "KWD", "-0.007"),
        (5, "CLF", "0.0005"),
    ],
)
def test_the_numeric_text_is_the_amount_in_currency_units(
    amount: int, currency: str, text: str
) -> None:
    """The CSVs' numeric columns: currency units, the currency's minor digits, no code
    and no separators."""
    assert money.decimal_text(amount, currency) == text


@given(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from(["EUR", "JPY", "KWD", "CLF"]),
)
def test_the_numeric_text_agrees_with_decimal_arithmetic(amount: int, currency: str) -> None:
    """Against the standard library's decimal: the minor units scaled by the ISO
    exponent, exactly (amounts far beyond a float's 53 bits included)."""
    from decimal import Context, Decimal

    digits = minor_unit_digits(currency)
    expected = Decimal(amount).scaleb(-digits, Context(prec=60))
    assert Decimal(money.decimal_text(amount, currency)) == expected
    assert money.decimal_text(amount, currency) == f"{expected:.{digits}f}"


@pytest.mark.parametrize("bad", [12.5, True, "100"])
def test_the_numeric_text_refuses_what_is_not_money(bad: object) -> None:
    with pytest.raises(TypeError):
        money.decimal_text(bad, "EUR")  # type: ignore[arg-type]
