"""The account plan and the journal: balanced entries in integer minor units.

Every account is a place where value is: a table's tray (one account per chip
denomination, and ``unsorted`` for chips that play moved without saying which), its drop
box (cash, markers, chips), the chips on its layout (stakes in play), chips in transit
between the cage and the table, the table's count over/short, the cage, the chips in
players' hands, the markers players owe, and the outside world. An entry moves value
between places; its lines are signed (``+`` value arrives, ``-`` value leaves) and sum to
zero, or the entry cannot be made. A balance is what an account holds by the entries:
``world`` goes negative by what came in from outside, ``players`` by chips players
brought from elsewhere. Every trial balance therefore sums to zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

CAGE = "cage"
PLAYERS = "players"
MARKERS_RECEIVABLE = "markers_receivable"
WORLD = "world"
INSTRUMENTS = ("cash", "markers", "chips")


def tray(table: str, denomination: int | None) -> str:
    """The tray of ``table``: one account per denomination; ``None`` is ``unsorted``,
    the chips play moved (a stake lost, a payout, a buy-in) without naming them."""
    return f"tray:{table}:{'unsorted' if denomination is None else denomination}"


def drop_box(table: str, instrument: str) -> str:
    """The drop box of ``table``, per instrument (cash, markers, chips)."""
    return f"drop:{table}:{instrument}"


def layout(table: str) -> str:
    """Stakes on the layout of ``table``, from the bet until its settlement."""
    return f"layout:{table}"


def transit(table: str) -> str:
    """Chips of ``table``'s fills and credits between the cage and the table."""
    return f"transit:{table}"


def over_short(table: str) -> str:
    """What ``table``'s counts found more (-) or less (+) than its books say it holds."""
    return f"over_short:{table}"


class UnbalancedEntry(ValueError):
    """An entry whose lines do not sum to zero, or with an amount that is not an integer."""


# a Line made from its two members directly, ``new_line(Line, (account, amount))``: a
# NamedTuple's own __new__ is a Python function, and the fold makes lines per stake and
# settlement (the same tuples)
new_line = tuple.__new__


class Line(NamedTuple):
    """One line of an entry (a named tuple: entries are made per stake and settlement,
    and a tuple is several times quicker to make than a frozen dataclass)."""

    account: str
    amount: int  # + value arrives at the account, - value leaves it


@dataclass(frozen=True, slots=True)
class Entry:
    """One balanced posting: where (table, gaming day, shift - None for a whole day's
    drop box), why (``event`` id and a ``memo``) and its lines. The constructor refuses an
    entry that does not balance."""

    table: str
    gaming_day: str
    shift: str | None
    event: str | None
    memo: str
    lines: tuple[Line, ...]

    def __post_init__(self) -> None:
        check(self.memo, self.lines)


def check(memo: str, lines: Iterable[tuple[object, ...]]) -> None:
    """Refuse lines that do not make an entry: an amount that is not an integer, or
    amounts that do not sum to zero (:class:`UnbalancedEntry`). An :class:`Entry` is
    checked when made; a fold that keeps no entries checks its lines with this."""
    total = 0
    for line in lines:
        # lines read as tuples of any objects: typed as Lines (an int amount), the compiled
        # build would refuse a non-integer with its own TypeError before this check named it
        amount = line[1]
        if type(amount) is not int:  # not a float, not a bool (a subclass of int)
            raise UnbalancedEntry(f"{memo}: a non-integer amount {amount!r}")
        total += amount
    if total != 0:
        raise UnbalancedEntry(f"{memo}: the lines sum to {total}, not 0")


def moves(*transfers: tuple[str, str, Any]) -> tuple[Line, ...]:
    """Lines for transfers ``(from, to, amount)``; zero amounts leave no line. Balanced by
    construction: each transfer is a ``-`` line and a ``+`` line of the same amount. (An
    amount is typed Any: read from a payload, it reaches the entry's check as it is, and
    the check names one that is not an integer.)"""
    lines: list[Line] = []
    for source, target, amount in transfers:
        if amount:
            lines.append(new_line(Line, (source, -amount)))
            lines.append(new_line(Line, (target, amount)))
    return tuple(lines)


def trial_balance(entries: Iterable[Entry]) -> dict[str, int]:
    """Each account's balance by ``entries`` (accounts that end at zero are kept, so a
    place that value passed through shows). The balances sum to zero."""
    balances: dict[str, int] = {}
    for entry in entries:
        for line in entry.lines:
            balances[line.account] = balances.get(line.account, 0) + line.amount
    return balances
