"""The ledger's configuration, read from Django's settings when asked (never at import):
the shift plan, the variance thresholds and the pits tables stand in.

``parse_pits`` has no Django in it: the settings module uses it to refuse a bad value at
start, naming the variable.
"""
from __future__ import annotations

import fnmatch
import re

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
            raise ValueError(f"{part.strip()!r}: expected PIT=TABLE,TABLE (a pit name of 1-32 letters, digits, "
                             "space . _ -)")
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

    return ShiftPlan.parse(settings.LEDGER_SHIFTS, day_start=f"{settings.GAMING_DAY_CUTOFF_HOUR:02d}:00",
                           zone=settings.TIME_ZONE)


def thresholds() -> Thresholds:
    """N.J.A.C. 13:69D-1.21(e)'s thresholds as configured, in minor units."""
    from django.conf import settings

    return Thresholds(report_above=settings.LEDGER_VARIANCE_REPORT_MINOR,
                      regulator_from=settings.LEDGER_VARIANCE_REGULATOR_MINOR)


def configured_pit(table: str) -> str:
    from django.conf import settings

    return pit_by_settings(table, parse_pits(settings.LEDGER_PITS))
