from __future__ import annotations

import pytest

from tables.replay_service import replay_table

from .helpers import append, dealt, plant_short_pay


@pytest.fixture
def fault(settings) -> dict:
    """T1, eight hoyle rounds with one win short-paid, appended and replayed (nothing
    projected on append); returns where the fault is."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8)
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    return fault
