"""Replay as a service: a planted fault becomes exactly one finding on the right round
and bet; running again changes nothing; a correction supersedes the finding; the runs
record their progress."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from audit.models import ReplayRun
from tables import models as m
from tables.projections import snapshot
from tables.replay_service import replay_table
from tables.tasks import replay_day_task

from .helpers import DAY, append, append_correction, dealt, engine_findings, plant_short_pay

pytestmark = pytest.mark.django_db


def _findings() -> list[tuple]:
    return sorted(
        engine_findings().values_list(
            "fingerprint",
            "kind",
            "severity",
            "stream",
            "gaming_day",
            "round",
            "box",
            "hand",
            "bet",
            "expected",
            "recorded",
            "status",
            "superseded_by",
            "run",
            "event_version",
        )
    )


@pytest.fixture
def short_paid(settings):
    """T1 with one win recorded a unit short, T2 clean; nothing replayed on append."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=30, table="T1")
    fault = plant_short_pay(events)
    append("T1", events)
    append("T2", dealt("vegas-s17-das-ls", rounds=30, table="T2"))
    return fault


def test_a_planted_short_pay_is_exactly_one_open_finding_on_its_round_and_bet(short_paid):
    summary = replay_day_task.delay(DAY.isoformat()).get()
    parent = ReplayRun.objects.get(pk=summary)
    assert parent.status == "done" and parent.tables_total == parent.tables_done == 2
    assert parent.summary["open_by_kind"] == {"wrong_payout": 1}
    finding = engine_findings().get()
    assert (finding.kind, finding.severity, finding.status) == ("wrong_payout", "high", "open")
    assert (finding.stream, finding.gaming_day, finding.round, finding.bet) == (
        "T1",
        DAY,
        short_paid["round"],
        short_paid["bet"],
    )
    assert (
        finding.expected == f"win {short_paid['right']:+d}"
        and finding.recorded == f"win {short_paid['wrong']:+d}"
    )
    assert finding.superseded_by is None and finding.run.parent == parent
    bet = m.Bet.objects.get(
        round__table__stream="T1", round__number=short_paid["round"], bet=short_paid["bet"]
    )
    assert (bet.recorded_net, bet.expected_net, bet.matches) == (
        short_paid["wrong"],
        short_paid["right"],
        False,
    )
    assert m.Bet.objects.filter(matches=False).count() == 1


def test_replaying_twice_changes_nothing(short_paid):
    replay_day_task.delay(DAY.isoformat(), full=True).get()
    findings, projection = _findings(), snapshot()
    again = ReplayRun.objects.get(pk=replay_day_task.delay(DAY.isoformat()).get())
    assert (again.findings_new, again.findings_superseded, again.rounds) == (
        0,
        0,
        0,
    )  # nothing new to fold
    full = ReplayRun.objects.get(pk=replay_day_task.delay(DAY.isoformat(), full=True).get())
    assert (full.findings, full.findings_new, full.findings_superseded) == (1, 0, 0)
    assert _findings() == findings
    assert snapshot() == projection


def test_a_correction_supersedes_the_finding_on_the_next_replay(short_paid, settings):
    replay_table(stream="T1")
    finding = engine_findings().get()
    append_correction("T1", short_paid)
    run = ReplayRun.objects.get(pk=replay_table(stream="T1")["run"])
    finding.refresh_from_db()
    assert finding.superseded_by == run and finding.status == "open"  # kept, not deleted
    assert run.findings_superseded == 1 and run.findings_new == 0
    assert not engine_findings().filter(superseded_by__isnull=True).exists()
    round_ = m.Round.objects.get(table__stream="T1", number=short_paid["round"])
    assert round_.corrected and round_.recorded_net == round_.expected_net
    assert (
        round_.versions[-1] == m.Table.objects.get(stream="T1").projected_version
    )  # the correction is the round's
    assert not m.Bet.objects.filter(matches=False).exists()


def test_a_wrong_correction_replaces_the_finding_with_one_on_the_new_amount(short_paid):
    replay_table(stream="T1")
    append_correction("T1", short_paid, net=short_paid["right"] + 5)
    replay_table(stream="T1")
    current = engine_findings().get(superseded_by__isnull=True)
    assert (
        current.recorded == f"win {short_paid['right'] + 5:+d}" and current.bet == short_paid["bet"]
    )
    assert engine_findings().filter(superseded_by__isnull=False).count() == 1


def test_incremental_replays_while_a_day_is_recorded_give_the_full_replays_findings(settings):
    """Replayed after every chunk (on commit, the table's task), cut anywhere - mid-round
    included, where the open round is not reported as missing - the findings are those
    of one full replay at the end."""
    events = dealt("hoyle", rounds=40, table="T1")
    fault = plant_short_pay(events, skip=25)
    append("T1", events, chunk=37, project=True)
    live = _findings()
    assert [(f[1], f[5], f[8]) for f in live] == [("wrong_payout", fault["round"], fault["bet"])]
    replay_table(stream="T1", full=True)
    assert _findings() == live
    runs = ReplayRun.objects.filter(trigger="feed")
    assert runs.count() == -(-len(events) // 37) and all(r.status == "done" for r in runs)


@pytest.mark.parametrize("kept", [True, False], ids=["fold-kept-in-memory", "refold-from-shuffle"])
def test_findings_of_events_survive_incremental_replays(
    kept, monkeypatch, django_capture_on_commit_callbacks
):
    """A card that is not the shoe's next (found at its event) and a short pay (found
    at the end): replayed after every chunk, the current findings are a full replay's."""
    import tables.feed

    tables.feed.CACHE.clear()
    monkeypatch.setattr(tables.feed.CACHE, "size", 16 if kept else 0)
    events = dealt("hoyle", rounds=60, table="T1")
    plant_short_pay(events, skip=40)
    dealt_cards = [e for e in events if e["type"] == "card.dealt"]
    victim = dealt_cards[len(dealt_cards) // 3]
    victim["payload"]["card"] = "AS" if victim["payload"]["card"] != "AS" else "KD"
    append("T1", events, chunk=23, project=True)
    current = sorted(
        engine_findings().filter(superseded_by__isnull=True).values_list("fingerprint", flat=True)
    )
    kinds = sorted(
        engine_findings().filter(superseded_by__isnull=True).values_list("kind", flat=True)
    )
    assert "card_out_of_sequence" in kinds and "wrong_payout" in kinds
    replay_table(stream="T1", full=True)
    assert (
        sorted(
            engine_findings()
            .filter(superseded_by__isnull=True)
            .values_list("fingerprint", flat=True)
        )
        == current
    )


def test_replay_day_command_prints_the_summary(short_paid):
    out = io.StringIO()
    call_command("replay_day", "--day", DAY.isoformat(), stdout=out)
    text = out.getvalue()
    assert "T1: 30 rounds replayed, 1 finding (1 new, 0 superseded)" in text
    assert "T2: 30 rounds replayed, 0 findings" in text
    assert "findings by kind: wrong_payout 1" in text
    out = io.StringIO()
    call_command("replay_day", "--stream", "T1", "--full", stdout=out)
    assert "T1: 30 rounds replayed, 1 finding (0 new, 0 superseded)" in out.getvalue()


def test_a_day_in_figures(short_paid):
    from tables.selectors import day_summary

    replay_day_task.delay(DAY.isoformat()).get()
    summary = day_summary(DAY)
    assert [t["table"] for t in summary["tables"]] == ["T1", "T2"]
    assert summary["rounds"] == 60 and summary["bets"] == m.Bet.objects.count()
    assert summary["findings_by_kind"] == {"wrong_payout": 1}
    t1 = summary["tables"][0]
    assert (
        t1["house_result"] - t1["house_result_recomputed"] == 1
    )  # the unit short-paid stayed with the house
    assert t1["handle"] == sum(
        m.Bet.objects.filter(round__table__stream="T1").values_list("amount", flat=True)
    )
