"""A table's stream over several gaming days, events about earlier rounds, and a round's
review showing a tampered event."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command

from audit.models import Finding, ReplayRun
from audit.store.streams import NewEvent, events_append, stream_version
from tables import models as m
from tables import selectors
from tables.engine.presets import PRESETS
from tables.engine.simulate import deal_table
from tables.projections import first_difference, rebuild
from tables.replay_service import replay_table

from ..audit.tampering import tamper
from .helpers import DAY, START, append, dealt, plant_short_pay

pytestmark = pytest.mark.django_db
NEXT = DAY + timedelta(days=1)


def _second_day(rounds: int = 15) -> list[dict]:
    return deal_table(
        PRESETS["hoyle"], seed="day2", rounds=rounds, table="T1", start=START + timedelta(days=1)
    ).events


def test_each_gaming_day_is_replayed_on_its_own(settings):
    """Round numbers start again each day: the read models and findings keep the days
    apart, and replay_day --day replays that day's tables only."""
    settings.PROJECT_ON_APPEND = False
    first = dealt("hoyle", rounds=12)
    second = _second_day()
    fault = plant_short_pay(second)
    append("T1", first)
    append("T1", second)
    out = io.StringIO()
    call_command("replay_day", "--day", NEXT.isoformat(), stdout=out)
    assert "T1: 15 rounds replayed, 1 finding" in out.getvalue()
    assert not m.Round.objects.filter(gaming_day=DAY).exists()  # not asked for
    finding = Finding.objects.get()
    assert (finding.gaming_day, finding.round, finding.bet) == (NEXT, fault["round"], fault["bet"])
    replay_table(stream="T1")
    assert m.Round.objects.filter(table__stream="T1", gaming_day=DAY).count() == 12
    assert m.Round.objects.filter(table__stream="T1", gaming_day=NEXT).count() == 15
    assert list(m.TableDay.objects.values_list("gaming_day", "rounds")) == [(DAY, 12), (NEXT, 15)]
    assert Finding.objects.count() == 1
    live, rebuilt = rebuild("T1")
    assert first_difference(live, rebuilt) is None


@pytest.mark.parametrize("rounds", [20, 90])
def test_a_late_void_rewrites_the_round_it_names(rounds, django_capture_on_commit_callbacks):
    """A round voided after later rounds were dealt - in the same shoe, or shoes later:
    the incremental fold rewrites that round (every stake back) and equals a rebuild."""
    append("T1", dealt("hoyle", rounds=rounds), chunk=40, project=True)
    assert (m.Shoe.objects.count() > 1) == (rounds == 90)
    with django_capture_on_commit_callbacks(execute=True):
        events_append(
            stream="T1",
            expected_version=stream_version("T1"),
            events=[
                NewEvent(
                    id=uuid.uuid4(),
                    type="round.voided",
                    occurred_at=datetime(2026, 11, 29, 22, tzinfo=UTC),
                    actor="user:pb",
                    source="back-office",
                    payload={
                        "round": 3,
                        "reason": "cards left in the discard holder",
                        "authorised_by": "PB-7",
                    },
                )
            ],
        )
    voided = m.Round.objects.get(number=3)
    assert voided.status == "voided" and voided.expected_net == 0
    assert voided.versions[-1] == stream_version("T1")
    live, rebuilt = rebuild("T1")
    assert first_difference(live, rebuilt) is None


def test_the_review_of_a_round_shows_a_tampered_event(settings):
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=6))
    replay_table(stream="T1")
    round_ = selectors.round_get(table="T1", day=DAY, number=4)
    review = selectors.round_review(round_)
    assert review.chain_ok and review.previous.number == 3 and review.next.number == 5
    assert review.shoe is not None and review.dealer is not None and review.hands and review.bets
    victim = review.events[2].event
    tamper(
        f"UPDATE audit_event SET actor = 'dealer:someone-else' WHERE position = {victim.position}"
    )
    review = selectors.round_review(round_)
    assert not review.chain_ok
    bad = [e for e in review.events if not e.chain_ok]
    assert [e.event.version for e in bad] == [victim.version] and bad[
        0
    ].chain == "content does not match its hash"


def test_runs_record_progress_and_failures(settings, monkeypatch):
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt(rounds=5))
    import tables.projections

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tables.projections, "project_stream", broken)
    with pytest.raises(RuntimeError):
        replay_table(stream="T1")
    run = ReplayRun.objects.get()
    assert run.status == "failed" and "disk on fire" in run.error and run.finished_at is not None
