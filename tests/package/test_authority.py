"""The regulator's package says who recorded each money-changing event (the manifest's
``authority``: the principal and whether its server seal held), and the offline auditor
applies the back-office's rule with it: a correction stored under a device's principal is
not applied by the exporter's folds nor by the auditor's, so their reports agree; a
person's is applied by both. The list is load-bearing: changed, the auditor's recomputed
reports no longer match; cut short, the auditor names it."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from audit.integrity import digests
from audit.models import Event
from audit.record import signing
from audit.store.streams import NewEvent, events_append, stream_version
from auditor import layout
from tests.back_office.test_authority_paths import store_past_the_door
from tests.package.conftest import NEXT_DAY, audit, export
from tests.package.tampering import manifest, write_manifest

pytestmark = pytest.mark.django_db


def _correction(settlement: dict[str, Any], round_: int, net: int, actor: str) -> NewEvent:
    return NewEvent(
        id=uuid.uuid4(),
        type="correction.recorded",
        occurred_at=datetime(2026, 11, 29, 23, tzinfo=UTC),
        actor=actor,
        source="back-office",
        payload={
            "round": round_,
            "corrects": None,
            "reason": "corrected",
            "authorised_by": "PB-1",
            "settlements": [{**settlement, "net": net}],
        },
    )


@pytest.fixture
def corrected(record, tmp_path) -> tuple[Path, str, str]:
    """BJ-01's last two settled bets (of its second day) corrected to a net of 1,000,000
    each: the first by the table's device (stored past the door, as before authority was
    checked), the second by a pit boss; the head signed again; that day exported. Returns
    the package and the two corrections' ids."""
    settled = [
        e
        for e in Event.objects.filter(stream="BJ-01", type="round.settled").order_by("-version")
        if e.payload["settlements"]
    ][:2]
    device = _correction(
        settled[0].payload["settlements"][0], settled[0].payload["round"], 1_000_000, "shoe:BJ-01"
    )
    person = _correction(
        settled[1].payload["settlements"][0], settled[1].payload["round"], 1_000_000, "user:pb"
    )
    store_past_the_door("BJ-01", device, principal="device:device-BJ-01")
    events_append(
        stream="BJ-01",
        expected_version=stream_version("BJ-01"),
        events=[person],
        principal="user:pb",
    )
    digests.digest_sign()
    out = tmp_path / "package"
    code, said = export("--day", NEXT_DAY, "--out", str(out))
    assert code == 0, said
    return out, str(device.id), str(person.id)


def test_the_manifest_says_who_recorded_each_correction(corrected) -> None:
    package, device, person = corrected
    stated = manifest(package)["streams"]["BJ-01"]["authority"]
    assert stated == {
        device: {"principal": "device:device-BJ-01", "sealed": True},
        person: {"principal": "user:pb", "sealed": True},
    }
    assert manifest(package)["format_version"] == layout.FORMAT_VERSION >= 6


def test_the_auditor_refuses_the_devices_correction_as_the_back_office_did(corrected) -> None:
    """The package's reports (the exporter's folds) and the auditor's agree; the checks
    report carries the refusal, on the device's correction alone."""
    package, device, _ = corrected
    code, said = audit("verify", str(package), blocked=True)
    assert code == 0, said
    assert "all agree" in said
    rows = json.loads((package / "reports" / "checks.json").read_text())["rows"]
    refused = [r for r in rows if r["kind"] == "unauthorised_change"]
    assert [(r["table"], r["event"]) for r in refused] == [("BJ-01", device)]
    assert "recorded by the table device device-BJ-01" in refused[0]["message"]


def test_a_changed_authority_changes_what_the_auditor_recomputes(corrected) -> None:
    """The device's correction restated as a person's (and the manifest signed again with
    the casino's key): the auditor applies it, and its reports no longer match the package's."""
    package, device, _ = corrected
    data = manifest(package)
    data["streams"]["BJ-01"]["authority"][device] = {"principal": "user:pb", "sealed": True}
    write_manifest(package, data)
    body = (package / layout.MANIFEST).read_bytes()
    (package / layout.SIGNATURE).write_bytes(
        layout.json_bytes(signing.sign_document(body, digests.signing_key()))
    )
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert "[reports] reports/checks.json" in said and "[reports] reports/rounds.json" in said


def test_a_money_changing_event_left_out_of_the_authority_is_named(corrected) -> None:
    package, device, _ = corrected
    data = manifest(package)
    del data["streams"]["BJ-01"]["authority"][device]
    write_manifest(package, data)
    body = (package / layout.MANIFEST).read_bytes()
    (package / layout.SIGNATURE).write_bytes(
        layout.json_bytes(signing.sign_document(body, digests.signing_key()))
    )
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert (
        "the events that change money (corrections, voids) are not the ones whose authority the manifest"
        in said
    )
