"""The ledger's replayed win comes from the tables' announcement, never from a call that
replays the tables: where the ledger's subscriber runs before the tables' (another worker,
another order), its days wait in ``replay_pending`` - no replayed win, no replay variance,
not reconciled, not to be signed off - and when the tables announce the table's days
replayed (:data:`audit.feed.subscribers.table_day_replayed`), the ledger reconciles them on the
replayed figures, as it would have with the tables first."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from audit.feed.subscribers import catch_up
from ledger import models as m
from ledger.projection import project_table
from ledger.reconciliation import reconcile_replayed
from ledger.signoff import SignOffError, day_sign_off
from tables import models as tm
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink

pytestmark = pytest.mark.django_db

TABLE = "BJ-01"
KEPT = (
    "state",
    "missing",
    "replayed_win",
    "recorded_win",
    "replay_variance",
    "chip_variance",
    "unexplained",
    "findings",
    "explanations",
)


class FirstDayFirst(StoreSink):
    """Appends each table's first gaming day and holds the rest back until :meth:`release`."""

    def __init__(self, config: SimConfig) -> None:
        super().__init__(config)
        self.held: list[tuple[str, int, list[Any], dict[int, dict[str, Any]]]] = []
        self.openings = Counter[str]()

    def write(
        self, stream: str, first_version: int, events: list[Any], marks: dict[int, dict[str, Any]]
    ) -> None:
        if any(held[0] == stream for held in self.held):
            self.held.append((stream, first_version, events, marks))
            return
        for index, (kind, *_) in enumerate(events):
            if kind == "table.opened":
                self.openings[stream] += 1
                if self.openings[stream] == 2:
                    if index:
                        super().write(stream, first_version, events[:index], marks)
                    self.held.append((stream, first_version + index, events[index:], marks))
                    return
        super().write(stream, first_version, events, marks)

    def release(self) -> None:
        for held in self.held:
            super().write(*held)
        self.held = []


def _days() -> dict[str, tuple[Any, ...]]:
    return {
        row.gaming_day.isoformat(): tuple(getattr(row, name) for name in KEPT)
        for row in m.Reconciliation.objects.filter(table__stream=TABLE, shift="").order_by(
            "gaming_day"
        )
    }


def test_days_wait_for_the_replay_and_take_it_when_announced(settings) -> None:
    """Day one, followed by both subscribers, has its replay. Day two arrives and the
    ledger runs first: day one (now final, reconciled again) and day two wait for the
    replay - an announcement of a version short of what the ledger folded leaves them
    waiting; the tables' catch-up announces the replay, and both days then read as a
    full refold with the tables caught up gives them."""
    settings.PROJECT_ON_APPEND = False
    config = SimConfig(tables=1, presets=("hoyle",), rounds=12, days=2, seed="announce")
    sink = FirstDayFirst(config)
    assert simulate(config, sink)["faults"] == []
    catch_up("tables.projections")
    catch_up("ledger.books")
    [first] = _days()
    assert m.Reconciliation.objects.get(table__stream=TABLE, shift="").replayed_win is not None

    sink.release()
    catch_up("ledger.books")
    days = list(
        m.Reconciliation.objects.filter(table__stream=TABLE, shift="").order_by("gaming_day")
    )
    assert len(days) == 2 and days[0].gaming_day.isoformat() == first
    for day in days:
        assert day.replayed_win is None and day.replay_variance is None
        assert day.state in ("replay_pending", "open", "incomplete"), day.state
    assert days[0].final and days[0].state == "replay_pending"
    carol = get_user_model().objects.create_user("carol", is_staff=True)
    carol.groups.add(Group.objects.get(name="accounting"))
    with pytest.raises(SignOffError, match="replay is not yet available"):
        day_sign_off(
            table=TABLE, gaming_day=days[0].gaming_day, user=carol, note="the replay can wait"
        )

    folded = m.LedgerTable.objects.get(stream=TABLE).folded_version
    assert reconcile_replayed(table=TABLE, version=folded - 1) == []
    assert _days()[first][0] == "replay_pending"

    catch_up("tables.projections")
    announced = _days()
    for day in m.Reconciliation.objects.filter(table__stream=TABLE, shift=""):
        replayed = tm.TableDay.objects.get(table__stream=TABLE, gaming_day=day.gaming_day)
        assert day.replayed_win == -replayed.expected_net == day.recorded_win, day
        assert day.state != "replay_pending" and day.replay_variance == 0
    project_table(stream=TABLE, full=True)
    assert announced == _days()
