"""The ledger's findings: the one vocabulary's :class:`Finding` (kinds owned by
``ledger``), with where it is in the ledger's terms - table, gaming day, shift, slip -
beside the event that showed it. ``expected`` and ``recorded`` are amounts as texts
(the one money formatter's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.record.findings import Finding, kinds_of

KINDS = kinds_of("ledger")


@dataclass(frozen=True, slots=True)
class LedgerFinding(Finding):
    table: str | None = None
    gaming_day: str | None = None
    shift: str | None = None
    slip: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.kind!r} is not a finding kind the ledger reports")

    def as_dict(self) -> dict[str, Any]:
        return {
            **Finding.as_dict(self),
            "table": self.table,
            "gaming_day": self.gaming_day,
            "shift": self.shift,
            "slip": self.slip,
        }
