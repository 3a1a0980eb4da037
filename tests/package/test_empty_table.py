"""A table opened and closed on a gaming day without dealing a round: the day's package
is made - by the command and on request over REST - and the offline auditor finds it
all agrees (its recomputed reports hold the table with nothing played)."""

from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from audit.integrity import digests
from audit.record.shelf import Shelf
from audit.store.streams import events_append
from tables.engine.rounds import ShelvedRounds
from tests.groups import group_named
from tests.package.conftest import DAY, audit, export
from tests.samples import T0, sample_event, table_opened

pytestmark = pytest.mark.django_db


@pytest.fixture
def empty_table(settings) -> str:
    """T9 opened and closed on 2026-11-29 with not one round; a head signed over it."""
    settings.PROJECT_ON_APPEND = False
    assert T0.date().isoformat() == DAY
    events_append(
        stream="T9",
        expected_version=0,
        events=[table_opened("T9"), sample_event("table.closed", {"gaming_day": DAY})],
    )
    digests.digest_sign()
    return "T9"


def test_the_command_exports_it_and_the_auditor_says_all_agree(
    empty_table: str, tmp_path: Path
) -> None:
    code, said = export("--day", DAY, "--out", str(tmp_path / "empty.zip"))
    assert code == 0, said
    manifest = json.loads(zipfile.ZipFile(tmp_path / "empty.zip").read("manifest.json"))
    assert manifest["streams"]["T9"]["events"] == 2 and manifest["streams"]["T9"]["counts"] == {
        "table.closed": 1,
        "table.opened": 1,
    }
    code, said = audit("verify", str(tmp_path / "empty.zip"), blocked=True)
    assert code == 0, said
    assert "rounds replayed: 0" in said and said.rstrip().endswith("all agree")


def test_it_is_made_on_request_over_rest(
    empty_table: str, settings, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    settings.PACKAGE_DIR = str(tmp_path)
    regulator = get_user_model().objects.create_user("reg", is_staff=True)
    regulator.groups.add(group_named("regulator"))
    client = APIClient()
    client.force_login(regulator)
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post("/api/packages", {"day": DAY}, format="json")
    assert asked.status_code == 202, asked.content
    status = client.get(f"/api/packages/{asked.json()['id']}").json()
    assert status["status"] == "ready" and status["events"] == 2, status


def test_no_rounds_by_number_are_none() -> None:
    """The engine's shelf of a table that dealt nothing lists no rounds by number."""
    assert list(ShelvedRounds(Shelf(), pickle.dumps).by_number()) == []
