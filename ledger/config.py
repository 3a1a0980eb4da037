"""The ledger's configuration, read from Django's settings when asked (never at import):
the shift plan, the variance thresholds per currency, the pits tables stand in and the
games without a drop box.

``parse_pits`` and ``parse_thresholds`` have no Django in them: the settings module uses
them to refuse a bad value at start, naming the variable.
"""

from __future__ import annotations

import fnmatch
import re

from audit.record.money import minor_unit_digits
from ledger.books import ShiftPlan, Thresholds

_PIT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,31}$")


def parse_pits(text: str) -> tuple[tuple[str, str], ...]:
    """``PIT-A=BJ-0*,BJ-10;PIT-B=BJ-1*`` -> ((pattern, pit), ...) in the order given: a
    table stands in the pit of the first pattern its code matches (shell-style: ``*``,
    ``?``, ``[...]``). Empty text: no table has a pit by configuration.

    >>> parse_pits("A=BJ-0*,BJ-10; B=BJ-1*")
    (('BJ-0*', 'A'), ('BJ-10', 'A'), ('BJ-1*', 'B'))
    """
    out: list[tuple[str, str]] = []
    for part in text.split(";"):
        if not part.strip():
            continue
        pit, sep, patterns = part.partition("=")
        pit = pit.strip()
        if not sep or not _PIT.match(pit):
            raise ValueError(
                f"{part.strip()!r}: expected PIT=TABLE,TABLE (a pit name of 1-32 letters, digits, "
                "space . _ -)"
            )
        names = [p.strip() for p in patterns.split(",") if p.strip()]
        if not names:
            raise ValueError(f"{part.strip()!r}: the pit {pit!r} names no table")
        out += [(name, pit) for name in names]
    return tuple(out)


def pit_by_settings(table: str, pits: tuple[tuple[str, str], ...]) -> str:
    """The pit the configuration puts ``table`` in ("" where none)."""
    for pattern, pit in pits:
        if fnmatch.fnmatchcase(table, pattern):
            return pit
    return ""


def shift_plan() -> ShiftPlan:
    """``LEDGER_SHIFTS`` from the gaming day's start (``GAMING_DAY_CUTOFF_HOUR``), in the
    casino's time zone (``TIME_ZONE``)."""
    from django.conf import settings

    return ShiftPlan.parse(
        settings.LEDGER_SHIFTS,
        day_start=f"{settings.GAMING_DAY_CUTOFF_HOUR:02d}:00",
        zone=settings.TIME_ZONE,
    )


_AMOUNT = re.compile(r"^(\d{1,12})(?:\.(\d{1,4}))?$")


def _minor(text: str, currency: str) -> int:
    """``25.00`` of ``currency`` in its minor units, exactly (no more decimals than it has)."""
    found = _AMOUNT.match(text.strip())
    if not found:
        raise ValueError(f"{text.strip()!r}: expected an amount in {currency}, e.g. 25.00")
    whole, fraction = found.group(1), found.group(2) or ""
    digits = minor_unit_digits(currency)
    if len(fraction) > digits:
        raise ValueError(
            f"{text.strip()!r}: {currency} has {digits} decimal{'s' if digits != 1 else ''}"
        )
    return int(whole) * 10**digits + int(fraction.ljust(digits, "0") or 0)


def parse_thresholds(text: str) -> dict[str, Thresholds]:
    """``EUR=25.00/100.00;JPY=3000/12000`` -> per currency the variance above which a
    finding is made and from which its message says it goes to the regulator, in the
    currency's units (N.J.A.C. 13:69D-1.21(e): $25 and $100), as minor units. A currency
    not named takes :meth:`Thresholds.default` (25 and 100 of its major unit).

    >>> t = parse_thresholds("EUR=25.00/100.00; KWD=10/40.5")
    >>> (t["EUR"].report_above, t["EUR"].regulator_from), (t["KWD"].report_above, t["KWD"].regulator_from)
    ((2500, 10000), (10000, 40500))
    """
    out: dict[str, Thresholds] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        currency, sep, amounts = part.partition("=")
        currency = currency.strip()
        report, slash, regulator = amounts.partition("/")
        if not sep or not slash:
            raise ValueError(
                f"{part.strip()!r}: expected CURRENCY=REPORT/REGULATOR, e.g. EUR=25.00/100.00"
            )
        minor_unit_digits(currency)  # a code of three capital letters, or ValueError naming it
        if currency in out:
            raise ValueError(f"{currency} is given twice")
        above, to_regulator = _minor(report, currency), _minor(regulator, currency)
        if to_regulator < above:
            raise ValueError(
                f"{part.strip()!r}: the regulator's threshold must be at least the report's"
            )
        out[currency] = Thresholds(report_above=above, regulator_from=to_regulator)
    return out


def thresholds(currency: str) -> Thresholds:
    """N.J.A.C. 13:69D-1.21(e)'s thresholds for ``currency`` as configured
    (``LEDGER_VARIANCE_THRESHOLDS``), else its default, in its minor units."""
    from django.conf import settings

    return parse_thresholds(settings.LEDGER_VARIANCE_THRESHOLDS).get(
        currency
    ) or Thresholds.default(currency)


def configured_pit(table: str) -> str:
    from django.conf import settings

    return pit_by_settings(table, parse_pits(settings.LEDGER_PITS))


def drop_box_of(ruleset: str, no_drop_box: list[str] | tuple[str, ...]) -> bool:
    """Whether tables of the game ``ruleset`` have a chip tray and a drop box by design: not
    when a pattern of ``no_drop_box`` matches it. A day whose game is not known (no
    ``table.opened``) has one: its missing counts are said, not hidden.

    >>> drop_box_of("hoyle", ["it-live"]), drop_box_of("it-live", ["it-live"]), drop_box_of("", ["*"])
    (True, False, True)
    """
    return not ruleset or not any(fnmatch.fnmatchcase(ruleset, pattern) for pattern in no_drop_box)


def has_drop_box(ruleset: str) -> bool:
    """:func:`drop_box_of` by the setting ``LEDGER_NO_DROP_BOX``."""
    from django.conf import settings

    return drop_box_of(ruleset, settings.LEDGER_NO_DROP_BOX)
