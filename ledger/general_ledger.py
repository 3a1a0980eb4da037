"""A gaming day's general ledger, for the casino's accounting system: the journal - every
line of every entry the books posted for the day, one CSV line each - and the trial
balance of the day's accounts. The format is documented in docs/accounting.md ("The
general ledger export").

**Where the lines come from.** The books are a fold of the events (:mod:`ledger.books`);
the ledger's read models keep each table-day's balances, not its entries (a live day's
entries would be rewritten with every batch). So the journal is folded again from the
record: each table's stream from the ``table.opened`` of the day before (the trays'
balances come from there, as the ledger's own fold starts) to its head - a drop posted, a
correction recorded days later still belongs to its day - and the entries of the day kept.
After the day's last event (the next ``table.opened``) only the kinds that can still post
into it are read (:data:`LATE_TYPES`), so a day long past costs its own events, not the
months since.
The same events give the same lines, in the same order, with the same ids: an entry is
named by its event and its place among that event's entries (``<event id>.<n>``), which a
later event never changes. :func:`agreement` compares the journal with the trial balance
the ledger stored, account by account: the two readings of one record.

**Signs.** An account is a place where value is; a line is ``+`` when value arrives there
and ``-`` when it leaves. The export writes ``+`` as a debit and ``-`` as a credit (an
asset account's convention: value arriving at the cage, a tray, the drop box, or in
players' hands - the chip liability - is a debit there), so each entry's debits equal its
credits, and so does each day's and currency's total.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.access.authority import refused_events
from audit.presenting.reports import Column, Report
from audit.record.authority import applicable
from audit.record.corrections import struck_events
from audit.record.money import money_text
from audit.store.reading import stream_events
from audit.store.streams import stream_head
from ledger.books.fold import Fold
from ledger.books.journal import Entry

from . import config, fx, projection, selectors
from . import models as m

JOURNAL_COLUMNS = (
    Column("gaming_day", gettext_noop("gaming day"), screen=False),
    Column("table", gettext_noop("table")),
    Column("shift", gettext_noop("shift")),
    Column("entry", gettext_noop("entry"), screen=False),
    Column("line", gettext_noop("line"), "int"),
    Column("account", gettext_noop("account"), screen=False),
    Column("account_name", gettext_noop("account")),
    Column("currency", gettext_noop("currency"), screen=False),
    Column("debit", gettext_noop("debit"), "amount", total=True),
    Column("credit", gettext_noop("credit"), "amount", total=True),
    Column("memo", gettext_noop("memo")),
    Column("event", gettext_noop("event"), screen=False),
    Column("event_version", gettext_noop("version"), "int"),
)
BALANCE_COLUMNS = (
    Column("account", gettext_noop("account"), screen=False),
    Column("account_name", gettext_noop("account")),
    Column("table", gettext_noop("table")),
    Column("currency", gettext_noop("currency")),
    Column("debit", gettext_noop("debit"), "amount", total=True),
    Column("credit", gettext_noop("credit"), "amount", total=True),
)


# after a day has ended, the events that can still post into it - its drop counted and
# posted, a correction of its bets - and those that say where the fold stands (a later
# day's opening and counts, so nothing later is taken for the day). Every other kind
# posts into the day it is recorded in.
LATE_TYPES = (
    "table.opened",
    "table.closed",
    "inventory.counted",
    "drop.removed",
    "drop.counted",
    "drop.posted",
    "correction.recorded",
)


@dataclass(frozen=True)
class TableJournal:
    table: str
    currency: str
    entries: list[Entry]
    versions: dict[str, int]  # event id -> its version in the stream


def table_journal(*, table: str, day: date) -> TableJournal:
    """The entries ``table``'s books post for gaming ``day``, folded again from the record."""
    text = day.isoformat()
    opened = projection.openings(table)
    index = next((i for i, (_, d) in enumerate(opened) if d == text), None)
    start = 1 if not index else opened[index - 1][0]
    after = opened[index + 1][0] if index is not None and index + 1 < len(opened) else None
    head, _position = stream_head(table)
    reads = (
        [(start, head, projection.TYPES)]
        if after is None
        else [(start, after - 1, projection.TYPES), (after, head, LATE_TYPES)]
    )
    events = []
    for low, high, types in reads:
        for event in stream_events(table, low, high, types=types):
            event["stream"] = table
            events.append(event)
    # the books' own rules: a correction no one with the authority recorded strikes nothing
    # (audit.record.authority), and foreign amounts are booked at the days' rates
    refused = refused_events(table, start, head)
    fold = Fold(
        plan=config.shift_plan(),
        struck=struck_events(applicable(events, refused)),
        refused=refused,
        rates=fx.rates(),
    )
    for event in events:
        fold.apply(event)
    books = fold.books(final=False)
    return TableJournal(
        table,
        books.currency,
        [e for e in books.entries if e.gaming_day == text],
        {e["id"]: e["version"] for e in events},
    )


def _tables(day: date, table: str | None) -> list[m.Reconciliation]:
    return list(selectors.reconciliations(day=day, table=table))


Folded = list[tuple[m.Reconciliation, TableJournal]]


def folded(*, day: date, table: str | None = None) -> Folded:
    """Each table-day of ``day`` with its journal folded again: what :func:`journal` and
    :func:`agreement` read (a caller that wants both folds once)."""
    return [
        (period, table_journal(table=period.table.stream, day=day))
        for period in _tables(day, table)
    ]


def journal(*, day: date, table: str | None = None, folds: Folded | None = None) -> Report:
    """The day's journal: one line per line of every entry, table by table in the order
    the books posted them; debits and credits in currency units, totals per currency.
    ``folds``: the table-days folded already (:func:`folded`)."""
    rows = []
    for _table_day, found in folds if folds is not None else folded(day=day, table=table):
        seen: dict[str, int] = {}
        for entry in found.entries:
            key = entry.event or "-"
            seen[key] = seen.get(key, 0) + 1
            for number, line in enumerate(entry.lines, start=1):
                rows.append(
                    {
                        "gaming_day": entry.gaming_day,
                        "table": found.table,
                        "shift": entry.shift or None,
                        "entry": f"{key}.{seen[key]}",
                        "line": number,
                        "account": line.account,
                        "account_name": selectors.account_label(line.account, found.currency),
                        "currency": found.currency,
                        "debit": line.amount if line.amount > 0 else None,
                        "credit": -line.amount if line.amount < 0 else None,
                        "memo": entry.memo,
                        "event": entry.event,
                        "event_version": found.versions.get(entry.event or ""),
                    }
                )
    return Report(
        "journal",
        _("General ledger journal, gaming day %(day)s") % {"day": selectors.day_text(day)},
        JOURNAL_COLUMNS,
        rows,
        {"day": day.isoformat(), "table": table},
    ).with_totals()


_SHARED = ("cage", "players", "markers_receivable", "world")  # accounts of no one table


def trial_balance(*, day: date, table: str | None = None) -> Report:
    """The day's trial balance from the ledger's stored rows: each account's balance of the
    day's entries as a debit (value arrived; an account value only passed through, 0.00)
    or a credit (value left); the accounts of no one table (cage, players' chips, markers
    receivable, the outside world) added over the tables of a currency. Debits equal
    credits per currency."""
    sums: dict[tuple[str, str], int] = {}
    owner: dict[tuple[str, str], str | None] = {}
    for period in _tables(day, table):
        for account, amount in period.trial_balance.items():
            key = (period.currency, account)
            sums[key] = sums.get(key, 0) + amount
            owner[key] = None if account in _SHARED else period.table.stream
    rows = [
        {
            "account": account,
            "account_name": selectors.account_label(account, currency),
            "table": owner[(currency, account)],
            "currency": currency,
            "debit": amount if amount >= 0 else None,
            "credit": -amount if amount < 0 else None,
        }
        for (currency, account), amount in sorted(
            sums.items(), key=lambda item: (item[0][0], _order(item[0][1]))
        )
    ]
    return Report(
        "trial_balance",
        _("Trial balance, gaming day %(day)s") % {"day": selectors.day_text(day)},
        BALANCE_COLUMNS,
        rows,
        {"day": day.isoformat(), "table": table},
    ).with_totals()


def _order(account: str) -> tuple[int, str]:
    """The shared accounts first, then each table's, by name."""
    return (_SHARED.index(account), "") if account in _SHARED else (len(_SHARED), account)


@dataclass(frozen=True)
class Agreement:
    """The journal folded again against the trial balance stored, per table: the accounts
    whose balance differs (empty: they agree)."""

    differences: dict[str, dict[str, tuple[int, int]]]  # table -> account -> (journal, stored)
    currencies: dict[str, str] = field(default_factory=dict)  # table -> its currency

    def said(self) -> dict[str, str]:
        """Per table, each account that differs in words, its amounts by the one money
        formatter: ``cage: the journal -EUR 14,000.00, stored -EUR 13,999.00``."""
        return {
            table: "; ".join(
                f"{account}: the journal {money_text(j, self.currencies.get(table))}, stored "
                f"{money_text(s, self.currencies.get(table))}"
                for account, (j, s) in accounts.items()
            )
            for table, accounts in self.differences.items()
        }

    @property
    def agrees(self) -> bool:
        return not self.differences


def agreement(*, day: date, table: str | None = None, folds: Folded | None = None) -> Agreement:
    """Whether each table's journal of ``day`` sums, account by account, to the day's trial
    balance the ledger stored. They differ when the ledger's read models are behind the
    record (they follow the feed), or were built from other events."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    currencies: dict[str, str] = {}
    for period, found in folds if folds is not None else folded(day=day, table=table):
        sums: dict[str, int] = {}
        for entry in found.entries:
            for line in entry.lines:
                sums[line.account] = sums.get(line.account, 0) + line.amount
        accounts = set(sums) | set(period.trial_balance)
        differ = {
            a: (sums.get(a, 0), period.trial_balance.get(a, 0))
            for a in sorted(accounts)
            if sums.get(a, 0) != period.trial_balance.get(a, 0)
        }
        if differ:
            out[period.table.stream] = differ
            currencies[period.table.stream] = period.currency
    return Agreement(out, currencies)
