"""A finding's page reads as a page, not a dump of the row: the kind's title and
sentence (never its code), each place once - the round linked to its review - amounts as
money, and the names for machines (the 64-hex fingerprint, the event's id) only inside
the folded "Details". Resolving a finding acknowledges its floor alert, in the same trail
(audit.findings then audit.alerts, under the person who resolved it)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from audit.findings.workflow import finding_resolve
from audit.models import Event, Finding
from audit.presenting.vocabulary import event_title, kind_sentence, kind_title
from audit.record.events import REGISTRY
from audit.record.findings import KINDS
from audit.record.money import format_signed
from tables import models as m

from .helpers import DAY

pytestmark = pytest.mark.django_db

HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


def _boss() -> tuple[User, Client]:
    user = User.objects.create_user("pat", password="a-long-test-password", is_staff=True)
    user.groups.add(Group.objects.get(name="pit_boss"))
    client = Client()
    client.force_login(user)
    return user, client


def _page(client: Client, finding: Finding) -> str:
    return client.get(reverse("admin:audit_finding_change", args=[finding.pk])).content.decode()


def _main(html: str) -> tuple[str, str]:
    """(the page's content without its Details fold, the fold)."""
    content = html.split('id="content-main"', 1)[1]
    before, rest = content.split('<details class="finding-details">', 1)
    fold, after = rest.split("</details>", 1)
    return before + after, fold


def test_the_finding_page_says_its_kind_in_words_shows_the_round_once_and_folds_the_ids(fault):
    finding = Finding.objects.get()
    _, boss = _boss()
    html = _page(boss, finding)
    main, fold = _main(html)
    visible = unescape(re.sub(r"<[^>]+>", " ", main))  # the text, not attributes or markup

    assert KINDS["wrong_payout"].title in visible and KINDS["wrong_payout"].sentence in visible
    assert "wrong_payout" not in visible
    # the round: one link to its review, its number said once
    assert main.count('class="round-review"') == 1
    assert len(re.findall(rf"\bround {fault['round']}\b", visible)) == 1
    # amounts as money, computed here from the planted fault
    assert f"win {format_signed(fault['right'], 'EUR')}" in visible
    assert f"win {format_signed(fault['wrong'], 'EUR')}" in visible
    # no fingerprint (nor any 64-hex) outside the fold; the fold has it, and the event's id
    assert not HEX64.search(main)
    assert finding.fingerprint in fold
    assert (str(finding.event_id) if finding.event_id else "n/a") in fold
    # one date format: not the admin's "Nov. 29, 2026" beside an ISO day
    assert "Nov. 29, 2026" not in html and "Event id:" not in html


def test_resolving_a_finding_acknowledges_its_alert_in_the_same_trail(fault):
    finding = Finding.objects.get()
    alert = m.Alert.objects.get(finding=finding)
    assert alert.acknowledged_at is None
    user, _ = _boss()

    finding_resolve(finding_id=finding.pk, user=user, note="short pay refunded, slip R-88")

    alert.refresh_from_db()
    assert alert.acknowledged_by == "pat" and alert.note == "short pay refunded, slip R-88"
    [resolved] = Event.objects.filter(stream="audit.findings", type="finding.resolved")
    [acknowledged] = Event.objects.filter(stream="audit.alerts", type="alert.acknowledged")
    assert acknowledged.payload["alert"] == alert.key == f"finding:{finding.fingerprint}"
    assert acknowledged.payload["finding"] == finding.fingerprint
    assert (acknowledged.actor, acknowledged.payload["by"]) == ("user:pat", "pat")
    assert resolved.actor == "user:pat" and resolved.occurred_at == acknowledged.occurred_at
    assert alert.acknowledged_at == acknowledged.occurred_at
    assert alert.event_version == acknowledged.version
    assert resolved.position < acknowledged.position


def test_resolving_from_the_page_leaves_no_alert_waiting_and_acknowledging_does_not(fault):
    """Only resolving acknowledges: an acknowledged finding's alert still waits (the floor
    must still see it); a second alert-free finding resolves without an alert event."""
    finding = Finding.objects.get()
    _, boss = _boss()
    status = reverse(
        "admin:audit_finding_status", kwargs={"pk": finding.pk, "action": "acknowledge"}
    )
    boss.post(status, {"note": "looking"})
    assert m.Alert.objects.get().acknowledged_at is None
    assert not Event.objects.filter(stream="audit.alerts").exists()
    status = reverse("admin:audit_finding_status", kwargs={"pk": finding.pk, "action": "resolve"})
    boss.post(status, {"note": "refunded"})
    assert m.Alert.objects.filter(acknowledged_at__isnull=True).count() == 0
    assert Event.objects.filter(stream="audit.alerts").count() == 1
    assert DAY == finding.gaming_day


def test_every_kind_and_every_event_type_has_a_title_the_screens_show():
    """The one vocabulary and the catalogue name each kind and type for people: titled,
    told apart, and what the screens' functions give; an unknown code stays itself."""
    titles = [kind.title for kind in KINDS.values()]
    assert all(t and t[0].isupper() for t in titles) and len(set(titles)) == len(titles)
    for name, kind in KINDS.items():
        assert (kind_title(name), kind_sentence(name)) == (kind.title, kind.sentence)
    types = [t.title for t in REGISTRY.values()]
    assert all(t and t[0].isupper() for t in types) and len(set(types)) == len(types)
    assert event_title("betting.closed") == "Betting closed"
    assert (kind_title("no_such_kind"), event_title("no.such")) == ("no_such_kind", "no.such")
