"""What the tables' screens show of a table-day's accounts - its drop, win and hold, its
reconciliation's state and page, the table's pit - from a provider the project
registers (``casino.apps``).

The tables may not import the ledger (imports point one way; tables and ledger sit side
by side), so they declare here what they read, and the project, the one layer that
sees both, registers the ledger's own figures: the figures on a table's page are the
ones the reconciliation shows, never computed a second time. Without a provider (or a
day the ledger has not folded) every figure is "n/a".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Protocol


@dataclass(frozen=True, slots=True)
class DayAccounts:
    """A table-day as the ledger reckons it. Money in minor units of ``currency``; None
    where the ledger has none (no drop counted, no closing count)."""

    currency: str
    drop: int | None  # what the drop box held, as counted
    win: int | None  # the chip-count win: + the house won
    hold: Fraction | None  # the ledger's hold: win over drop
    state: str  # the reconciliation's state (its code)
    state_text: str  # the state in words, as the ledger says it
    url: str | None  # the reconciliation's page


class AccountsProvider(Protocol):
    def day(self, *, table: str, gaming_day: date) -> DayAccounts | None:
        """``table``'s ``gaming_day`` as the ledger reckons it; None where it has none."""

    def pits(self, tables: Iterable[str]) -> dict[str, str]:
        """Each table's pit, where it has one."""


_PROVIDER: list[AccountsProvider] = []


def accounts_register(provider: AccountsProvider) -> None:
    """The provider the tables' screens read (the last registered wins)."""
    _PROVIDER[:] = [provider]


def day_accounts(table: str, gaming_day: date) -> DayAccounts | None:
    return _PROVIDER[0].day(table=table, gaming_day=gaming_day) if _PROVIDER else None


def pits(tables: Iterable[str]) -> dict[str, str]:
    return _PROVIDER[0].pits(tables) if _PROVIDER else {}
