"""The pit bosses' admin screens render (round review, findings, tables, gaming days),
and only users who may change findings get the bulk acknowledge action."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client
from django.urls import reverse

from audit.models import Event, Finding
from audit.record.money import format_signed
from tables import models as m
from tables.admin import _hand_cards, card_face
from tables.replay_service import replay_table

from ..audit.tampering import tamper
from .helpers import DAY, append, dealt

pytestmark = pytest.mark.django_db


def _review(round_: m.Round) -> str:
    """A round's review by its natural key."""
    return f"/admin/tables/round/{round_.table.stream}/{round_.gaming_day.isoformat()}/{round_.number}/"


def _staff(name: str, *, pit_boss: bool) -> Client:
    user = User.objects.create_user(name, password="a-long-test-password", is_staff=True)
    if pit_boss:
        user.groups.add(Group.objects.get(name="pit_boss"))
    else:  # other staff: view permissions only
        user.user_permissions.add(
            *Permission.objects.filter(
                codename__in=[
                    "view_round",
                    "view_finding",
                    "view_table",
                    "view_tableday",
                    "view_shoe",
                    "view_event",
                ]
            )
        )
    client = Client()
    client.force_login(user)
    return client


def test_the_round_review_shows_cards_payouts_findings_and_chain(admin_client, fault):
    round_ = m.Round.objects.get(number=fault["round"])
    response = admin_client.get(_review(round_))
    assert response.status_code == 200
    html = response.content.decode()
    assert "admin/tables/round/review.html" in [t.name for t in response.templates]
    # cards as cards, red and black, a face-down hole card drawn as a back on the timeline
    assert 'class="playing-card red' in html and 'class="playing-card black' in html
    assert any(s in html for s in "♠♥♦♣")
    assert "playing-card back" in html
    # the short pay: recorded and recomputed side by side, highlighted
    assert f'id="bet-{fault["bet"]}"' in html
    row = html.split(f'id="bet-{fault["bet"]}"')[1].split("</tr>")[0]
    assert "mismatch" in html.split(f'id="bet-{fault["bet"]}"')[0].rsplit("<tr", 1)[1]
    # in the table's currency (EUR: the engine's tables open in it)
    assert (
        f"win {format_signed(fault['wrong'], 'EUR')}" in row
        and f"win {format_signed(fault['right'], 'EUR')}" in row
    )
    finding = Finding.objects.get()
    assert finding.message in html and "wrong_payout" in html
    assert html.count('class="event"') == len(round_.versions)
    assert "BROKEN" not in html
    assert 'id="previous-round"' in html and 'id="next-round"' in html and 'id="shoe"' in html


def test_lists_render_with_counts_and_links(admin_client, fault):
    round_ = m.Round.objects.get(number=fault["round"])
    review = _review(round_)
    findings = admin_client.get(
        reverse("admin:audit_finding_changelist"),
        {
            "kind": "wrong_payout",
            "severity": "high",
            "status": "open",
            "stream": "T1",
            "gaming_day": DAY.isoformat(),
        },
    )
    assert findings.status_code == 200
    assert review in findings.content.decode()
    assert (
        admin_client.get(
            reverse("admin:audit_finding_change", args=[Finding.objects.get().pk])
        ).status_code
        == 200
    )
    tables = admin_client.get(reverse("admin:tables_table_changelist")).content.decode()
    assert '<td class="field-round_count">8</td>' in tables
    assert '<td class="field-bet_count">' in tables
    days = admin_client.get(reverse("admin:tables_tableday_changelist")).content.decode()
    assert 'class="field-finding_count"' in days and ">1</a>" in days
    day_rounds = admin_client.get(
        reverse("admin:tables_round_changelist"),
        {"table__stream": "T1", "gaming_day": DAY.isoformat()},
    )
    assert day_rounds.status_code == 200 and day_rounds.context["cl"].result_count == 8
    rounds = admin_client.get(reverse("admin:tables_round_changelist")).content.decode()
    assert 'class="field-mismatched_count">1<' in rounds
    shoe = admin_client.get(f"/admin/tables/shoe/T1/{round_.shoe.shuffled_version}/")
    assert shoe.status_code == 200 and shoe.context["original"] == round_.shoe
    day = admin_client.get(f"/admin/tables/tableday/T1/{DAY.isoformat()}/")
    assert day.status_code == 200 and day.context["original"].rounds == 8
    assert admin_client.get("/admin/tables/table/T1/").context["original"].stream == "T1"
    # every link of the lists is a natural key
    assert f'href="/admin/tables/tableday/T1/{DAY.isoformat()}/"' in days
    assert f'href="/admin/tables/round/T1/{DAY.isoformat()}/{round_.number}/"' in rounds


def test_only_who_may_change_findings_gets_the_acknowledge_action(fault):
    url = reverse("admin:audit_finding_changelist")
    finding = Finding.objects.get()
    staff = _staff("clerk", pit_boss=False)
    page = staff.get(url)
    assert page.status_code == 200 and 'value="acknowledge"' not in page.content.decode()
    staff.post(url, {"action": "acknowledge", "_selected_action": [finding.pk]})
    assert Finding.objects.get().status == "open"

    boss = _staff("boss", pit_boss=True)
    assert 'value="acknowledge"' in boss.get(url).content.decode()
    response = boss.post(
        url, {"action": "acknowledge", "_selected_action": [finding.pk]}, follow=True
    )
    assert "Acknowledged 1 finding" in response.content.decode()
    finding.refresh_from_db()
    assert (finding.status, finding.status_changed_by) == ("acknowledged", "boss")
    assert Event.objects.filter(stream="audit.findings", type="finding.acknowledged").count() == 1
    # twice: refused, reported, no second event
    response = boss.post(
        url, {"action": "acknowledge", "_selected_action": [finding.pk]}, follow=True
    )
    assert f"Finding {finding.pk} not changed" in response.content.decode()
    assert Event.objects.filter(stream="audit.findings").count() == 1


def test_the_review_shows_a_tampered_event_broken_and_reads_the_timeline(admin_client, fault):
    round_ = m.Round.objects.get(number=fault["round"])
    settled = Event.objects.get(stream="T1", version=round_.last_version)
    tamper(f"UPDATE audit_event SET actor = 'forger' WHERE position = {settled.position}")
    html = admin_client.get(_review(round_)).content.decode()
    assert "BROKEN" in html and "content does not match its hash" in html
    # the round.settled line of the timeline
    assert f"{fault['bet']} win {format_signed(fault['wrong'], 'EUR')}" in html
    assert "face down" in html


def test_the_rounds_list_filters_rounds_with_findings(admin_client, fault):
    url = reverse("admin:tables_round_changelist")
    with_ = admin_client.get(url, {"with_findings": "yes"}).context["cl"].queryset
    assert [r.number for r in with_] == [fault["round"]]
    without = admin_client.get(url, {"with_findings": "no"}).context["cl"].queryset
    assert fault["round"] not in [r.number for r in without] and len(without) == 7


def test_a_round_without_bets_findings_or_neighbours_renders(admin_client, settings):
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("hoyle", rounds=1))
    replay_table(stream="T1")
    round_ = m.Round.objects.get()
    html = admin_client.get(_review(round_)).content.decode()
    assert (
        "Findings (0)" in html
        and 'id="previous-round"' not in html
        and 'id="next-round"' not in html
    )
    assert admin_client.get(f"/admin/tables/round/T1/{DAY.isoformat()}/99/").status_code == 404


def test_staff_without_the_round_view_permission_cannot_open_a_review(fault):
    user = User.objects.create_user("cashier", password="a-long-test-password", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_finding"))
    client = Client()
    client.force_login(user)
    round_ = m.Round.objects.get(number=fault["round"])
    assert client.get(_review(round_)).status_code == 403
    assert client.get(reverse("admin:audit_finding_changelist")).status_code == 200


def test_cards_are_drawn_with_rank_suit_colour_and_a_back_until_revealed():
    assert card_face("TD") == {"code": "TD", "rank": "10", "suit": "♦", "colour": "red"}
    assert card_face("AS")["suit"] == "♠" and card_face("AS")["colour"] == "black"
    assert card_face("KH")["colour"] == "red" and card_face("2C") == {
        "code": "2C",
        "rank": "2",
        "suit": "♣",
        "colour": "black",
    }
    hand = m.Hand(
        box=0,
        number=0,
        total=10,
        soft=False,
        bust=False,
        cards=[
            {"card": "QH", "face": "up", "version": 3, "revealed_version": None},
            {"card": "6S", "face": "down", "version": 5, "revealed_version": None},
        ],
    )
    up, down = _hand_cards(hand)
    assert not up["back"] and down["back"]
    hand.cards[1]["revealed_version"] = 9
    assert not _hand_cards(hand)[1]["back"] and _hand_cards(hand)[1]["hole"]
