"""Format 7: the package carries what the back-office's books use besides the events - the
gaming day's exchange rates (the manifest's ``fx_rates``) and which rule sets have a drop
box - so the offline auditor books a foreign amount as the back-office does, names a
missing opener, closer or drop as it does, and gives each table-day's state. Figures by
hand: USD 1,000.00 at 0.9215 is EUR 921.50; the worked example (13 Miss. Code R. 7-3.3)
without its closer has no chip-count win."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from audit.feed.subscribers import catch_up
from audit.integrity import digests
from auditor import layout
from ledger import fx
from ledger import models as m
from tests.back_office.helpers import append
from tests.ledger.conftest import fake_game  # noqa: F401 - the fixture
from tests.ledger.helpers import DAY, Table, worked_example
from tests.ledger.test_currencies import usd_at_a_eur_table
from tests.package.conftest import audit, export
from tests.package.tampering import manifest
from tests.package.test_theoretical import _resign

pytestmark = pytest.mark.django_db
NEXT = "2026-11-30"


def _report(package: Path, name: str) -> list[dict[str, Any]]:
    return json.loads((package / f"reports/{name}.json").read_text())["rows"]


def _stored(*tables: Table) -> None:
    for t in tables:
        t.open(NEXT)  # the day is final: its end-of-day checks are due
        append(t.code, t.events)
    digests.digest_sign()


@pytest.fixture
def usd(settings, tmp_path, fake_game) -> Path:  # noqa: F811
    """BJ-01 (EUR) takes USD 1,000.00 on 29 November, the day's rate 0.9215 set by accounting."""
    settings.PROJECT_ON_APPEND = False
    t = usd_at_a_eur_table()
    fake_game.record(t.code, t.events)
    _stored(t)
    carol = get_user_model().objects.create_user("carol", is_staff=True)
    carol.groups.add(Group.objects.get(name="accounting"))
    fx.fx_rate_set(
        gaming_day=date(2026, 11, 29), currency="USD", rate=Fraction(9_215, 10_000), user=carol
    )
    out = tmp_path / "usd"
    code, said = export("--day", DAY, "--out", str(out))
    assert code == 0, said
    return out


def test_a_foreign_amount_is_booked_at_the_day_s_rate_as_the_back_office_books_it(usd) -> None:
    data = manifest(usd)
    assert data["format_version"] == layout.FORMAT_VERSION == 7
    assert data["fx_rates"] == [
        {"gaming_day": DAY, "currency": "USD", "house": "EUR", "rate": "1843/2000"}
    ]
    [row] = [r for r in _report(usd, "reconciliation") if r["gaming_day"] == DAY]
    # 19,000.00 - 20,000.00 + 921.50: the 78.50 of chips given beyond the rate is a chip variance
    assert (row["drop"], row["chip_win"], row["chip_variance"]) == (92_150, -7_850, -7_850)
    assert (row["state"], row["missing"]) == ("counted", None)
    kinds = [c["kind"] for c in _report(usd, "checks") if c["gaming_day"] == DAY]
    assert "currency_mismatch" not in kinds and "chip_variance" in kinds
    catch_up("ledger.books")
    books = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (books.drop, books.chip_win, books.state) == (row["drop"], row["chip_win"], row["state"])
    code, said = audit("verify", str(usd), blocked=True)
    assert code == 0, said


def test_a_rate_the_manifest_states_otherwise_makes_the_reports_differ(usd) -> None:
    data = manifest(usd)
    data["fx_rates"][0]["rate"] = "1/1"
    _resign(usd, data)
    code, said = audit("verify", str(usd))
    assert code == 1 and "reports/reconciliation.csv:2" in said, said


def test_a_rate_that_is_no_fraction_is_named_and_nothing_is_checked(usd) -> None:
    data = manifest(usd)
    data["fx_rates"][0]["rate"] = "a lot"
    _resign(usd, data)
    code, said = audit("verify", str(usd))
    assert code == 2 and "fx_rates" in said, said


def test_each_day_s_state_and_what_it_lacks_as_the_back_office_says_them(
    settings,
    tmp_path,
    fake_game,  # noqa: F811
) -> None:
    """BJ-01 the worked example, complete: reconciled. BJ-02 the same without its closer:
    incomplete, closer_missing, no chip-count win and no hold. BJ-09 the live game (no
    drop box by design): no_drop_box, nothing missing."""
    settings.PROJECT_ON_APPEND = False
    whole = worked_example()
    short = worked_example("BJ-02")
    short.events = [
        e
        for e in short.events
        if not (e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing")
    ]
    live = Table("BJ-09")
    live.open(ruleset="it-live")
    live.play((100_000, -100_000))
    live.close()
    for t in (whole, short, live):
        fake_game.record(t.code, t.events)
    _stored(whole, short, live)
    out = tmp_path / "states"
    code, said = export("--day", DAY, "--out", str(out))
    assert code == 0, said
    rows = {r["table"]: r for r in _report(out, "reconciliation") if r["gaming_day"] == DAY}
    assert (rows["BJ-01"]["state"], rows["BJ-01"]["missing"], rows["BJ-01"]["hold"]) == (
        "reconciled",
        None,
        "44.44%",
    )
    assert (
        rows["BJ-02"]["state"],
        rows["BJ-02"]["missing"],
        rows["BJ-02"]["chip_win"],
        rows["BJ-02"]["hold"],
    ) == ("incomplete", "closer_missing", None, None)
    assert (rows["BJ-09"]["state"], rows["BJ-09"]["missing"]) == ("no_drop_box", None)
    checks = [
        (c["table"], c["kind"])
        for c in _report(out, "checks")
        if c["gaming_day"] == DAY and c["owner"] == "ledger"
    ]
    assert ("BJ-02", "closer_missing") in checks and not [c for c in checks if c[0] != "BJ-02"]
    line = {
        r["table"]: r
        for r in csv.DictReader(io.StringIO((out / "reports/reconciliation.csv").read_text()))
    }
    assert (line["BJ-02"]["state"], line["BJ-02"]["missing"]) == ("incomplete", "closer_missing")
    assert {e["drop_box"] for e in manifest(out)["rule_sets"].values()} == {True, False}
    catch_up("ledger.books")
    books = {
        r.table.stream: (r.state, r.missing)
        for r in m.Reconciliation.objects.filter(gaming_day=date(2026, 11, 29), shift="")
    }
    assert books == {
        "BJ-01": ("reconciled", []),
        "BJ-02": ("incomplete", ["closer_missing"]),
        "BJ-09": ("no_drop_box", []),
    }
    code, said = audit("verify", str(out), blocked=True)
    assert code == 0, said
