"""A whole day's replay fanned out per table in processes here (no broker): the same
read models and findings as one table after another; the fast writes (COPY, rounds
deleted by one statement) give what a rebuild gives."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.models import Finding, ReplayRun
from tables import models as m
from tables.projections import first_difference, rebuild, snapshot

from .helpers import DAY, append_short_paid


def _findings() -> list[tuple]:
    return sorted(
        Finding.objects.filter(superseded_by__isnull=True).values_list(
            "fingerprint", "kind", "stream", "round", "bet", "expected", "recorded"
        )
    )


@pytest.fixture
def three_tables(settings) -> list[dict]:
    settings.PROJECT_ON_APPEND = False
    tables = (("T1", "hoyle"), ("T2", "it-classic"), ("T3", "vegas-s17-das-ls"))
    return [fault for _, fault in append_short_paid(tables, rounds=20, seed="f")]


def _replay_day(*args: str) -> str:
    out = io.StringIO()
    call_command("replay_day", "--day", DAY.isoformat(), *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_day_in_two_processes_gives_what_one_process_gives(three_tables):
    one = _replay_day("--full", "--jobs", "1")
    projection, findings = snapshot(), _findings()
    assert len(findings) == 3 and m.Round.objects.count() == 60
    two = _replay_day("--full", "--jobs", "2")
    assert two == one.replace("(1 new,", "(0 new,")  # the same findings, found again
    assert "T2: 20 rounds replayed, 1 finding (0 new, 0 superseded)" in two
    assert snapshot() == projection
    assert _findings() == findings
    parent = ReplayRun.objects.filter(parent__isnull=True).latest("pk")
    assert (parent.status, parent.tables_total, parent.tables_done, parent.rounds) == (
        "done",
        3,
        3,
        60,
    )
    assert parent.children.filter(status="done").count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_full_replay_over_live_rows_equals_a_rebuild(three_tables):
    """The second full replay deletes the first's rounds, hands and bets by one
    statement each and writes them again by COPY: a rebuild from nothing agrees."""
    _replay_day("--full", "--jobs", "1")
    _replay_day("--full", "--jobs", "1")
    assert m.Hand.objects.count() > 60 and m.Bet.objects.count() > 60
    assert m.Round.objects.filter(dealer_total__isnull=True).count() == 0
    assert m.Round.objects.filter(shoe__isnull=True).count() == 0
    # the database has no foreign key of a bet's round (tables.models.Bet): the first
    # replay's bets went with their rounds, none left pointing at a round gone
    assert not m.Bet.objects.exclude(round_id__in=m.Round.objects.values("id")).exists()
    live, rebuilt = rebuild()
    assert first_difference(live, rebuilt) is None


def test_only_hands_and_bets_point_at_a_round():
    """Rounds are deleted without the ORM's cascade (tables.projections._delete_rounds):
    that is right only while nothing else points at a round, a hand or a bet."""
    assert {rel.related_model for rel in m.Round._meta.related_objects} == {m.Hand, m.Bet}
    assert not m.Hand._meta.related_objects and not m.Bet._meta.related_objects


@pytest.mark.django_db
def test_jobs_below_one_is_refused():
    with pytest.raises(CommandError, match="--jobs 0") as refused:
        _replay_day("--jobs", "0")
    assert refused.value.returncode == 2


@pytest.mark.django_db
def test_a_tables_task_delivered_again_after_its_work_counts_once(three_tables):
    """A worker that dies after replaying its table and before acknowledging the task
    has the broker deliver it again: the day's run answers it from the table's run
    already done, and counts the table, its events and rounds once."""
    from tables.replay_service import replay_day_start, replay_table

    parent, streams = replay_day_start(day=DAY, full=True)
    first = replay_table(stream="T1", day=DAY, full=True, parent_id=parent.pk)
    again = replay_table(stream="T1", day=DAY, full=True, parent_id=parent.pk)
    parent.refresh_from_db()
    assert again == first
    assert (parent.tables_total, parent.tables_done, parent.rounds) == (
        len(streams),
        1,
        first["rounds"],
    )
    assert parent.children.filter(stream="T1").count() == 1


@pytest.mark.django_db
def test_a_tables_task_delivered_again_after_its_worker_died_midway_is_done_and_the_lost_run_said(
    three_tables,
):
    """The broker delivers a table's task again when its worker died while replaying it:
    the run it left "running" is marked failed (worker lost), and the table is replayed
    and counted once."""
    from tables.replay_service import WORKER_LOST, replay_day_start, replay_table, run_start

    parent, _ = replay_day_start(day=DAY, full=True)
    left = run_start(
        mode=ReplayRun.Mode.FULL, trigger="task", stream="T2", gaming_day=DAY, parent=parent
    )
    summary = replay_table(stream="T2", day=DAY, full=True, parent_id=parent.pk)
    left.refresh_from_db()
    parent.refresh_from_db()
    assert (left.status, left.error) == (ReplayRun.Status.FAILED, WORKER_LOST)
    assert (parent.tables_done, parent.rounds) == (1, summary["rounds"])
    assert summary["open_by_kind"] == {"wrong_payout": 1}
