"""The pure ledger: the double-entry books of a table folded from its events, the
four-way reconciliation and the statistics. Pure Python - the standard library and the
record core (:mod:`audit.record`) only; no Django, nothing from ``tables`` (the Django
layer hands it the replayed figures and the house edge).

- :mod:`.journal` - the account plan, balanced entries, the trial balance;
- shifts (how the gaming day is split) come from the record core: `audit.record.shifts`;
- :mod:`.fold` - events -> :class:`Books` (entries, figures per day and shift, custody, findings);
- :mod:`.figures` - the figures and the custody state of slips, markers and drops;
- :mod:`.reconcile` - chip-count, recorded, replayed and theoretical win, and their findings;
- :mod:`.stats` - hold, intervals, aggregation by table, game, pit, casino and period;
- :mod:`.findings` - the ledger's findings (the one vocabulary's kinds owned by ``ledger``).
"""

from audit.record.shifts import WHOLE_DAY, ShiftPlan

from .figures import Figures
from .fold import Books, fold
from .journal import Entry, Line, UnbalancedEntry, trial_balance
from .reconcile import (
    Reconciliation,
    ReplayDifference,
    Thresholds,
    reconcile,
    replay_difference,
    table_day,
)

__all__ = [
    "WHOLE_DAY",
    "Books",
    "Entry",
    "Figures",
    "Line",
    "Reconciliation",
    "ReplayDifference",
    "ShiftPlan",
    "Thresholds",
    "UnbalancedEntry",
    "fold",
    "reconcile",
    "replay_difference",
    "table_day",
    "trial_balance",
]
