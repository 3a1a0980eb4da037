"""Shifts: how the gaming day is split, by configuration (Nevada Table Games MICS, note 3:
8-hour shifts, one 24-hour shift, or another split).

A :class:`ShiftPlan` names each shift by a label - its start time (``06:00``) unless the
configuration names it (``swing``) - and says which shift and gaming day a moment is in,
in the casino's time zone. The first start is the start of the gaming day.

    >>> plan = ShiftPlan.parse("8h", day_start="06:00")
    >>> plan.labels
    ('06:00', '14:00', '22:00')
    >>> ShiftPlan.parse("day=06:00,swing=14:00,grave=22:00").labels
    ('day', 'swing', 'grave')
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,31}\Z")
_HOURS = re.compile(r"^(\d{1,2})h\Z")
_DAY = 24 * 60


def _minutes(text: str) -> int:
    match = re.fullmatch(r"(\d{2}):(\d{2})", text)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ValueError(f"shift start {text!r}: expected HH:MM, 00:00 to 23:59")
    return int(match.group(1)) * 60 + int(match.group(2))


@dataclass(frozen=True, slots=True)
class ShiftPlan:
    """Shift starts (minutes after midnight, local time, the first one starting the
    gaming day), their labels and the time zone they are in."""

    starts: tuple[int, ...]
    labels: tuple[str, ...]
    zone: str = "UTC"

    def __post_init__(self) -> None:
        if not self.starts or len(self.starts) != len(self.labels):
            raise ValueError("a shift plan needs at least one shift, and one label per start")
        offsets = [(start - self.starts[0]) % _DAY for start in self.starts]
        if any(b <= a for a, b in itertools.pairwise(offsets)):
            raise ValueError("shift starts must follow each other within one gaming day")
        if len(set(self.labels)) != len(self.labels) or not all(
            _LABEL.match(label) for label in self.labels
        ):
            raise ValueError(
                f"shift labels must be distinct, 1-32 letters, digits and . _ : - (got {self.labels})"
            )
        try:
            ZoneInfo(self.zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {self.zone!r}") from None

    @classmethod
    def parse(cls, text: str, *, day_start: str = "06:00", zone: str = "UTC") -> ShiftPlan:
        """``8h`` / ``24h`` (any whole number of hours that divides 24) from ``day_start``,
        or a list of starts ``06:00,14:00,22:00``, each optionally named ``swing=14:00``."""
        text = text.strip()
        hours = _HOURS.match(text)
        if hours:
            length = int(hours.group(1))
            if length < 1 or 24 % length:
                raise ValueError(
                    f"shift length {text!r}: the hours must divide 24 (e.g. 8h, 12h, 24h)"
                )
            first = _minutes(day_start)
            starts = tuple((first + i * length * 60) % _DAY for i in range(24 // length))
            return cls(starts, tuple(f"{s // 60:02d}:{s % 60:02d}" for s in starts), zone)
        starts_: list[int] = []
        labels: list[str] = []
        for part in text.split(","):
            name, sep, start = part.strip().rpartition("=")
            minutes = _minutes(start.strip())
            starts_.append(minutes)
            labels.append(name.strip() if sep else f"{minutes // 60:02d}:{minutes % 60:02d}")
        return cls(tuple(starts_), tuple(labels), zone)

    def _local(self, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            raise ValueError("naive datetime: timestamps must be timezone-aware")
        return moment.astimezone(ZoneInfo(self.zone))

    def shift_of(self, moment: datetime) -> str:
        """The label of the shift ``moment`` falls in.

        >>> from datetime import UTC
        >>> ShiftPlan.parse("8h").shift_of(datetime(2026, 11, 29, 3, 0, tzinfo=UTC))
        '22:00'
        """
        local = self._local(moment)
        since = (local.hour * 60 + local.minute - self.starts[0]) % _DAY
        label = self.labels[0]
        for start, name in zip(self.starts, self.labels):
            if (start - self.starts[0]) % _DAY <= since:
                label = name
        return label

    def gaming_day_of(self, moment: datetime) -> date:
        """The gaming day ``moment`` belongs to: before the day's first start it is still
        the day before's.

        >>> from datetime import UTC
        >>> ShiftPlan.parse("8h").gaming_day_of(datetime(2026, 11, 30, 3, 0, tzinfo=UTC))
        datetime.date(2026, 11, 29)
        """
        local = self._local(moment)
        shifted = local - timedelta(minutes=self.starts[0])
        return shifted.date()

    def start_of(self, label: str) -> time:
        """When the shift ``label`` starts (local time)."""
        minutes = self.starts[self.labels.index(label)]
        return time(minutes // 60, minutes % 60)


WHOLE_DAY = ShiftPlan.parse("24h")
