"""The gaming day: the casino's business day, which ends at a cut-off hour, not midnight."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings


def gaming_day(moment: datetime, *, cutoff_hour: int | None = None, tz: str | None = None) -> date:
    """The gaming day ``moment`` belongs to: local time before the cut-off hour counts
    towards the previous calendar day."""
    if moment.tzinfo is None:
        raise ValueError("gaming_day needs a timezone-aware datetime")
    hour = settings.GAMING_DAY_CUTOFF_HOUR if cutoff_hour is None else cutoff_hour
    local = moment.astimezone(ZoneInfo(tz or settings.TIME_ZONE))
    return (local - timedelta(hours=hour)).date()


def gaming_day_bounds(first: date, last: date | None = None) -> tuple[datetime, datetime]:
    """When gaming days ``first`` to ``last`` (default: ``first`` alone) begin and end:
    the cut-off hour of ``first`` and of the day after ``last``, in ``TIME_ZONE`` (aware)."""
    zone = ZoneInfo(settings.TIME_ZONE)
    cutoff = time(settings.GAMING_DAY_CUTOFF_HOUR, tzinfo=zone)
    return datetime.combine(first, cutoff), datetime.combine(
        (last or first) + timedelta(days=1), cutoff
    )
