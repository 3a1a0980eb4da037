"""The ledger's figures of a table-day as the tables' screens read them
(:class:`tables.accounts.AccountsProvider`), registered by :class:`casino.apps.CasinoConfig`
- the one layer that may import both: the drop, the chip-count win and the hold exactly
as the reconciliation computes and shows them (``ledger.selectors``), and each table's pit."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from tables.accounts import DayAccounts


class LedgerAccounts:
    def day(self, *, table: str, gaming_day: date) -> DayAccounts | None:
        from ledger import selectors
        from ledger.admin import reconciliation_url

        row = selectors.reconciliations(table=table, day=gaming_day).first()
        if row is None:
            return None
        return DayAccounts(
            currency=row.currency,
            drop=row.drop,
            win=row.chip_win,
            hold=selectors.hold_of(row),
            state=row.state,
            state_text=selectors.state_text(row),
            url=reconciliation_url(table, gaming_day),
        )

    def pits(self, tables: Iterable[str]) -> dict[str, str]:
        from ledger import models as lm

        return dict(
            lm.LedgerTable.objects.filter(stream__in=list(tables))
            .exclude(pit="")
            .values_list("stream", "pit")
        )
