"""The package's reports: a short pay the engine finds is in the recomputed checks, the
round list shows it recorded against recomputed, and the back-office's finding travels
with its workflow trail; the auditor agrees with all of it (exit 0)."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from audit.feed.subscribers import catch_up
from audit.findings.workflow import finding_acknowledge
from audit.integrity import digests
from audit.models import Finding
from tables.simulator.config import SimConfig
from tables.simulator.faults import FaultAt
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink
from tests.package.conftest import DAY, audit, export


def test_a_short_pay_and_its_finding_travel_in_the_package(db, settings, tmp_path) -> None:
    settings.PROJECT_ON_APPEND = False
    config = SimConfig(
        tables=2,
        rounds=4,
        days=1,
        seed="package-fault",
        seats=2,
        live_bets=4,
        at=(FaultAt("short_pay", "BJ-02", 2),),
    )
    simulate(config, StoreSink(config))
    catch_up("tables.projections")
    finding = Finding.objects.get(stream="BJ-02", kind="wrong_payout")
    boss = get_user_model().objects.create_user("boss")
    boss.groups.add(Group.objects.get(name="pit_boss"))
    finding_acknowledge(finding_id=finding.pk, user=boss, note="looking at the camera")
    digests.digest_sign()
    out = tmp_path / "fault"
    assert export("--day", DAY, "--out", str(out))[0] == 0

    rounds = json.loads((out / "reports/rounds.json").read_text())["rows"]
    short = next(r for r in rounds if r["table"] == "BJ-02" and r["round"] == 2)
    assert short["agrees"] is False and short["recorded"] > short["recomputed"]
    checks = json.loads((out / "reports/checks.json").read_text())["rows"]
    assert [(c["table"], c["kind"], c["round"]) for c in checks if c["owner"] == "engine"] == [
        ("BJ-02", "wrong_payout", 2)
    ]
    reconciliation = {
        r["table"]: r for r in json.loads((out / "reports/reconciliation.json").read_text())["rows"]
    }
    day = reconciliation["BJ-02"]
    assert day["recorded_win"] - day["replayed_win"] == short["recorded"] - short["recomputed"]
    findings = json.loads((out / "reports/findings.json").read_text())["rows"]
    mine = next(f for f in findings if f["id"] == finding.pk)
    assert mine["status"] == "acknowledged" and mine["round"] == 2
    assert [(s["action"], s["by"], s["note"]) for s in mine["trail"]] == [
        ("acknowledged", "boss", "looking at the camera")
    ]
    assert "looking at the camera" in (out / "reports/findings.csv").read_text()

    code, said = audit("verify", str(out))
    assert code == 0, said
    code, said = audit("round", str(out), "BJ-02", DAY, "2")
    assert code == 0 and "DIFFERS" in said, said
