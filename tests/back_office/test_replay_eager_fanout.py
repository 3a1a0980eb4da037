"""A day's replay through the Celery task without a broker (eager) fans its tables out
over processes here, as ``replay_day --jobs N`` does, instead of the eager chord's one
table after another: every table replayed once, the findings and read models those of a
sequential run."""

from __future__ import annotations

import os

import pytest

from audit.models import Finding, ReplayRun
from casino.celery import app
from tables import models as m
from tables import replay_service
from tables.projections import snapshot
from tables.tasks import replay_day_task

from .helpers import DAY, append_short_paid


def _findings() -> list[tuple]:
    return sorted(
        Finding.objects.filter(superseded_by__isnull=True).values_list(
            "fingerprint", "kind", "stream", "round", "bet", "expected", "recorded"
        )
    )


@pytest.fixture
def three_tables(settings) -> list[tuple[str, dict]]:
    settings.PROJECT_ON_APPEND = False
    return append_short_paid(
        (("T1", "hoyle"), ("T2", "it-classic"), ("T3", "vegas-s17-das-ls")), rounds=15, seed="e"
    )


def _day(jobs: int) -> ReplayRun:
    assert app.conf.task_always_eager  # no broker: the path under test
    return ReplayRun.objects.get(
        pk=replay_day_task.delay(DAY.isoformat(), full=True, jobs=jobs).get()
    )


@pytest.mark.django_db(transaction=True)
def test_the_eager_task_fans_the_tables_out_and_finds_what_a_sequential_run_finds(
    three_tables, pools
):
    one = _day(1)
    assert pools == []  # one job: the tables one after another, no process started
    sequential, projection = _findings(), snapshot()
    assert sorted((f[2], f[3], f[4]) for f in sequential) == sorted(
        (t, f["round"], f["bet"]) for t, f in three_tables
    )
    Finding.objects.all().delete()

    two = _day(2)
    assert pools == [2]
    assert _findings() == sequential
    assert snapshot() == projection
    assert m.Round.objects.count() == 45
    for run in (one, two):
        assert (run.status, run.tables_total, run.tables_done, run.rounds) == ("done", 3, 3, 45)
        assert run.summary["tables"] == ["T1", "T2", "T3"]
        assert run.summary["open_by_kind"] == {"wrong_payout": 3}
    # every table replayed once, each by its own finished run
    children = sorted(two.children.values_list("stream", "status"))
    assert children == [("T1", "done"), ("T2", "done"), ("T3", "done")]


@pytest.mark.django_db
def test_inside_a_transaction_the_eager_task_replays_here_one_table_after_another(
    three_tables, pools
):
    """Other processes could not see the caller's uncommitted rows: no pool is opened,
    and the day is still replayed whole."""
    run = _day(2)
    assert pools == []
    assert (run.status, run.tables_done, run.summary["open_by_kind"]) == (
        "done",
        3,
        {"wrong_payout": 3},
    )


def test_the_default_is_one_process_per_core_on_postgresql_and_one_on_sqlite(db):
    from django.db import connection

    expected = 1 if connection.vendor == "sqlite" else (os.cpu_count() or 1)
    assert replay_service.default_jobs() == expected
