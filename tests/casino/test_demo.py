"""The README's main job, run on a small day without serving."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client

from audit.models import Event, Finding


@pytest.mark.django_db(transaction=True)
def test_demo_builds_a_day_finds_every_planted_fault_and_prints_a_working_login(tmp_path):
    out = io.StringIO()
    call_command("demo", no_serve=True, rounds=210, live_bets=5, folder=str(tmp_path), stdout=out)
    text = out.getvalue()
    assert "Gaming day 2026-11-29: 1,470 rounds" in text
    assert "planted faults found: 9 of 9" in text and "MISSED" not in text
    assert "all chains intact" in text
    assert Finding.objects.filter(superseded_by__isnull=True).count() == 9
    password = text.split("password: ")[1].split()[0]
    client = Client()
    assert client.login(username="demo", password=password)
    assert client.get("/admin/audit/event/").status_code == 200
    # a second run changes nothing it should not: same events, same findings
    events = Event.objects.count()
    call_command("demo", no_serve=True, rounds=210, live_bets=5, folder=str(tmp_path), stdout=io.StringIO())
    assert Event.objects.count() == events
    assert Finding.objects.filter(superseded_by__isnull=True).count() == 9
