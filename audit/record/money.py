"""The project's one money formatter: integer minor units as text a person reads.

``format_money(123450, "EUR") == "EUR 1,234.50"``: the ISO 4217 code, a space, the
major units with ``,`` between thousands, ``.`` and the minor units with as many digits
as ISO 4217 gives the currency (EUR, USD, GBP, CZK 2; JPY, KRW 0; KWD, BHD 3); a minus
sign in front for a negative amount (``-EUR 25.00``). ``format_signed`` is the variant
for house results, which always shows the sign of a non-zero amount (``+EUR 40.00``).
``decimal_text`` is the same amount as a number a spreadsheet reads (``1234.50``), for
the CSVs' numeric columns beside the formatted ones.

Pure integer arithmetic (``divmod``), never a float: every layer - the admin, the API's
CSV, the demo's summary, the engine's and the ledger's messages - formats money here.

People read money in their language: inside :func:`in_locale` (the back-office's
middleware wraps each request in the language the person chose or the browser asked
for) the same functions write the locale's way, through Babel's CLDR data - ``1.234,50 €``
in Italian, ``1 234,50 Kč`` in Czech, with non-breaking spaces so an amount never wraps.
Outside one (commands, logs, the CSVs' machine columns) and in English they write the
ISO code form above, which a casino taking several currencies reads without doubt.
The amount reaches Babel as an exact ``Decimal`` of the minor units, never a float.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from fractions import Fraction

# ISO 4217 minor units where they are not 2 (ISO 4217 list one, "minor unit" column).
# Every other code - the great majority, EUR, USD, GBP, CZK among them - has 2.
_EXPONENTS: dict[str, int] = {
    # no minor unit
    "BIF": 0,
    "CLP": 0,
    "DJF": 0,
    "GNF": 0,
    "ISK": 0,
    "JPY": 0,
    "KMF": 0,
    "KRW": 0,
    "PYG": 0,
    "RWF": 0,
    "UGX": 0,
    "UYI": 0,
    "VND": 0,
    "VUV": 0,
    "XAF": 0,
    "XOF": 0,
    "XPF": 0,
    # thousandths
    "BHD": 3,
    "IQD": 3,
    "JOD": 3,
    "KWD": 3,
    "LYD": 3,
    "OMR": 3,
    "TND": 3,
    # ten-thousandths (units of account)
    "CLF": 4,
    "UYW": 4,
}
_CODE = re.compile(r"^[A-Z]{3}\Z")

# the locale people read in (a CLDR name, "it", "cs"), or None: the ISO code form
_LOCALE: ContextVar[str | None] = ContextVar("money_locale", default=None)
# "no figure" in the locales the back-office speaks (n/a: missing data is never 0)
_NOT_AVAILABLE = {"it": "n/d"}


@contextmanager
def in_locale(locale: str | None) -> Iterator[None]:
    """Format in ``locale`` (``"it"``, ``"cs"``, ``"en"``; None or English: the ISO
    code form) until the block ends."""
    language = (locale or "").replace("-", "_").split("_")[0].lower()
    token = _LOCALE.set(None if language in ("", "en") else language)
    try:
        yield
    finally:
        _LOCALE.reset(token)


def active_locale() -> str | None:
    """The locale money is written in now, None for the ISO code form."""
    return _LOCALE.get()


def not_available() -> str:
    """``n/a`` in the active locale: where there is no figure."""
    locale = _LOCALE.get()
    return _NOT_AVAILABLE.get(locale or "", "n/a")


def _decimal(amount_minor: int, digits: int) -> Decimal:
    return Decimal(amount_minor).scaleb(-digits)


def minor_unit_digits(currency: str) -> int:
    """How many digits the currency's minor unit has (ISO 4217): 2 for EUR, 0 for JPY."""
    if not _CODE.match(currency):
        raise ValueError(f"currency {currency!r} is not an ISO 4217 code (three capital letters)")
    return _EXPONENTS.get(currency, 2)


def format_money(amount_minor: int, currency: str) -> str:
    """``amount_minor`` of ``currency`` as ``EUR 1,234.50`` / ``-EUR 25.00`` / ``JPY 1,235``.

    >>> format_money(123450, "EUR"), format_money(-2500, "EUR"), format_money(123400, "CZK")
    ('EUR 1,234.50', '-EUR 25.00', 'CZK 1,234.00')
    >>> format_money(1235, "JPY"), format_money(1234567, "KWD"), format_money(5, "USD")
    ('JPY 1,235', 'KWD 1,234.567', 'USD 0.05')
    """
    if not isinstance(amount_minor, int) or isinstance(amount_minor, bool):
        raise TypeError(
            f"money is an integer number of minor units, not {type(amount_minor).__name__}"
        )
    digits = minor_unit_digits(currency)
    locale = _LOCALE.get()
    if locale is not None:
        from babel.numbers import format_currency

        return format_currency(_decimal(amount_minor, digits), currency, locale=locale)
    sign = "-" if amount_minor < 0 else ""
    if digits == 0:
        return f"{sign}{currency} {abs(amount_minor):,}"
    major, minor = divmod(abs(amount_minor), 10**digits)
    return f"{sign}{currency} {major:,}.{minor:0{digits}d}"


def format_number(value: int) -> str:
    """A count or a whole number of chips with the locale's thousands separators:
    ``12,345`` (``12.345`` in Italian, ``12 345`` in Czech).

    >>> format_number(1234567), format_number(-5)
    ('1,234,567', '-5')
    """
    locale = _LOCALE.get()
    if locale is None:
        return f"{value:,}"
    from babel.numbers import format_decimal

    return format_decimal(value, locale=locale)


def decimal_text(amount_minor: int, currency: str) -> str:
    """``amount_minor`` of ``currency`` in currency units as plain decimal text: the
    number a spreadsheet or a general ledger reads (no code, no thousands separator, a
    minus sign only), with exactly the currency's minor digits.

    >>> decimal_text(3520000, "EUR"), decimal_text(-2500, "EUR"), decimal_text(5, "USD")
    ('35200.00', '-25.00', '0.05')
    >>> decimal_text(35200, "JPY"), decimal_text(1234, "KWD"), decimal_text(-7, "KWD")
    ('35200', '1.234', '-0.007')
    """
    if not isinstance(amount_minor, int) or isinstance(amount_minor, bool):
        raise TypeError(
            f"money is an integer number of minor units, not {type(amount_minor).__name__}"
        )
    digits = minor_unit_digits(currency)
    sign = "-" if amount_minor < 0 else ""
    if digits == 0:
        return f"{sign}{abs(amount_minor)}"
    major, minor = divmod(abs(amount_minor), 10**digits)
    return f"{sign}{major}.{minor:0{digits}d}"


def format_signed(amount_minor: int, currency: str) -> str:
    """A house result (or any difference): ``+EUR 40.00``, ``-EUR 40.00``, ``EUR 0.00``.

    >>> format_signed(4000, "EUR"), format_signed(-4000, "EUR"), format_signed(0, "EUR")
    ('+EUR 40.00', '-EUR 40.00', 'EUR 0.00')
    """
    text = format_money(amount_minor, currency)
    return f"+{text}" if amount_minor > 0 else text


def money_text(
    amount_minor: int | None, currency: str | None, *, signed: bool = False, none: str = "-"
) -> str:
    """A figure that may be unknown (``none``) in a currency that may be unknown: the
    formatter's text (``signed``: :func:`format_signed`'s), or the minor units as stored
    when no currency is known (a record whose table never opened).

    >>> money_text(2500, "EUR"), money_text(2500, "EUR", signed=True), money_text(None, "EUR")
    ('EUR 25.00', '+EUR 25.00', '-')
    >>> money_text(2500, None, signed=True), money_text(None, "EUR", none="n/a")
    ('+2500', 'n/a')
    """
    if amount_minor is None:
        return not_available() if none == "n/a" else none
    if not currency:
        return f"{amount_minor:+d}" if signed else str(amount_minor)
    return format_signed(amount_minor, currency) if signed else format_money(amount_minor, currency)


# rates beside money (hold %, accuracy): exact fractions shown one way everywhere
def basis_points(value: Fraction) -> int:
    """A rate in hundredths of a percent, rounded half away from zero."""
    scaled = value * 10_000
    whole = math.floor(abs(scaled) + Fraction(1, 2))
    return whole if scaled >= 0 else -whole


def percent(value: Fraction | None, digits: int = 1) -> str:
    """``44.4%``; ``n/a`` where there is no rate (no drop: missing data is never a
    figure). Rounded half away from zero.

    >>> percent(Fraction(1, 8)), percent(Fraction(-1, 3)), percent(None)
    ('12.5%', '-33.3%', 'n/a')
    """
    if value is None:
        return not_available()
    scaled = abs(value) * 100 * 10**digits
    whole = math.floor(scaled + Fraction(1, 2))
    sign = "-" if value < 0 and whole else ""
    locale = _LOCALE.get()
    if locale is not None:
        from babel import Locale
        from babel.numbers import format_percent

        pattern = Locale.parse(locale).percent_formats[None].pattern
        exact = "#,##0." + "0" * digits if digits else "#,##0"
        ratio = _decimal(-whole if sign else whole, digits + 2)
        return format_percent(ratio, format=pattern.replace("#,##0", exact), locale=locale)
    text = f"{whole // 10**digits}" + (f".{whole % 10**digits:0{digits}d}" if digits else "")
    return f"{sign}{text}%"
