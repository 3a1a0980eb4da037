"""A bulk catch-up of the ledger (a day ingested with nothing projected, then
``reconcile``) takes the day's tables in a process per core, as ``replay_day`` does:
the same books and findings as one process, and a table that fails in its process
fails the batch naming it while the others are done."""

from __future__ import annotations

import pytest

from audit.feed.subscribers import TablesFailed, catch_up, feed_head
from audit.models import Finding, SubscriberPosition
from ledger import feed
from ledger import models as m
from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink
from tests.commands import run_command

pytestmark = pytest.mark.django_db(transaction=True)

CUSTODY = [kind for kind, fault in KINDS.items() if fault.check == "ledger"]


@pytest.fixture
def day(on_postgres, settings) -> dict:
    """Four simulated tables of one day in the store, custody faults planted, nothing
    projected; returns the simulator's manifest."""
    settings.PROJECT_ON_APPEND = False
    feed.CACHE.clear()
    rates = {kind: 0.05 for kind in CUSTODY} | {"chip_variance": 0.5, "drop_mismatch": 0.3}
    config = SimConfig(tables=4, rounds=30, days=1, seed="fan-ledger", live_bets=30, rates=rates)
    return simulate(config, StoreSink(config))


def _books() -> tuple[list[tuple], list[tuple]]:
    rows = sorted(
        m.Reconciliation.objects.values_list(
            "table__stream",
            "gaming_day",
            "shift",
            "recorded_win",
            "chip_win",
            "replayed_win",
            "unexplained",
        )
    )
    found = sorted(
        Finding.objects.filter(superseded_by__isnull=True).values_list(
            "stream", "kind", "expected", "recorded"
        )
    )
    return rows, found


def test_reconcile_takes_the_tables_in_processes_with_the_books_of_one(
    day, pools, monkeypatch
) -> None:
    monkeypatch.setattr("ledger.management.commands.reconcile.default_jobs", lambda: 2)
    code, out, err = run_command("reconcile", "--day", "2026-11-29")
    assert pools == [2]
    assert code in (0, 1), err
    assert out.count("2026-11-29: chip-count") == 4
    fanned = _books()
    planted = {(f["table"], f["finding"]["kind"]) for f in day["faults"]}
    assert planted and {(stream, kind) for stream, kind, _, _ in fanned[1]} == planted

    # the same day folded again in one process gives the same rows and findings
    m.Reconciliation.objects.all().delete()
    m.LedgerTable.objects.update(folded_version=0)
    SubscriberPosition.objects.filter(name=feed.NAME).update(position=0)
    catch_up(feed.NAME, jobs=1)
    assert pools == [2]
    assert _books() == fanned


def test_a_table_failing_in_its_process_fails_the_batch_naming_it(day, pools, monkeypatch) -> None:
    real = feed.project_table

    def broken(*, stream, **kwargs):
        if stream == "BJ-02":
            raise RuntimeError("the disk is full")
        return real(stream=stream, **kwargs)

    monkeypatch.setattr(feed, "project_table", broken)
    with pytest.raises(TablesFailed, match=r"BJ-02: RuntimeError\('the disk is full'\)") as caught:
        catch_up(feed.NAME, jobs=2)
    assert pools == [2]
    assert "BJ-01" not in str(caught.value)
    assert (
        SubscriberPosition.objects.get(name=feed.NAME).position == 0
    )  # kept: the batch is retried
    done = set(m.Reconciliation.objects.filter(shift="").values_list("table__stream", flat=True))
    assert "BJ-02" not in done and {"BJ-01", "BJ-03", "BJ-04"} <= done

    monkeypatch.setattr(feed, "project_table", real)
    assert catch_up(feed.NAME, jobs=2).position == feed_head()
    assert "BJ-02" in set(m.Reconciliation.objects.values_list("table__stream", flat=True))


def test_the_catch_up_command_takes_the_tables_in_jobs_processes(day, pools) -> None:
    code, out, err = run_command("catch_up", "--subscriber", feed.NAME, "--jobs", "2")
    assert (code, err) == (0, ""), out
    assert pools == [2] and f"{feed.NAME}: position 0 -> {feed_head()}" in out
    assert m.Reconciliation.objects.filter(shift="").count() == 4
    code, _, err = run_command("catch_up", "--jobs", "0")
    assert code == 2 and "--jobs 0: expected a whole number of at least 1" in err
