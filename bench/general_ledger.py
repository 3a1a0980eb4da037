"""Benchmark: the accountant's reports of a 100-table gaming day.

    python bench/general_ledger.py                        # SQLite, 100 tables, 60 rounds each
    python bench/general_ledger.py --db postgres --tables 100 --rounds 60

The day is built as bench/reconcile.py builds it (the simulator straight into the store, then
the tables' and the ledger's read models). Then, in a fresh process: the general ledger
journal of the day (every table's stream folded again from the day before's opening, with
its entries - the export's cost), its CSV, the comparison with the stored trial balances,
the trial balance, and the master game report - each in wall-clock time and in the
process's CPU time (on a shared machine the second is the steadier). Not a test: it prints
figures.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reconcile import _build, _database, _setup


def _reports(url: str) -> None:
    _setup(url)
    from ledger import general_ledger, master_game
    from ledger import models as m

    day = (
        m.Reconciliation.objects.order_by("gaming_day").values_list("gaming_day", flat=True).first()
    )
    tables = m.Reconciliation.objects.filter(gaming_day=day, shift="").count()
    for label, make in (
        ("journal (folded again)", lambda: general_ledger.journal(day=day)),
        ("journal as CSV", lambda: general_ledger.journal(day=day).as_csv()),
        ("journal against the stored trial balances", lambda: general_ledger.agreement(day=day)),
        ("trial balance", lambda: general_ledger.trial_balance(day=day)),
        ("master game report", lambda: master_game.master_game(day=day)),
        ("master game report by shift", lambda: master_game.master_game(day=day, shift="all")),
    ):
        began, cpu = time.perf_counter(), time.process_time()
        made = make()
        took, spent = time.perf_counter() - began, time.process_time() - cpu
        size = (
            f"{len(made.rows):,} lines"
            if hasattr(made, "rows")
            else f"{len(made):,} characters"
            if isinstance(made, str)
            else "agrees"
            if made.agrees
            else f"differs at {len(made.differences)} tables"
        )
        print(f"{label}, {tables} tables: {took:.2f} s, {spent:.2f} s of CPU ({size})")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=("build", "reports"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        (
            _build(args.child, args.tables, args.rounds)
            if args.phase == "build"
            else _reports(args.child)
        )
        return
    with tempfile.TemporaryDirectory() as folder:
        url = _database(args.db, Path(folder))
        print(f"--- {args.db}")
        for phase in ("build", "reports"):
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    url,
                    "--phase",
                    phase,
                    "--tables",
                    str(args.tables),
                    "--rounds",
                    str(args.rounds),
                ],
                check=True,
            )


if __name__ == "__main__":
    main()
