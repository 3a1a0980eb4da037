"""Findings worked on screen: acknowledged, resolved with a note and reopened from a
finding's page, its round's review and the list - CSRF-protected posts to the admin,
``audit.change_finding`` only - with the trail shown; amounts as money; a sentence for
every kind; one "-" where a finding has nothing to show."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from audit.admin import amount_text, finding_amounts, kind_sentence
from audit.models import Event, Finding
from audit.record.findings import KINDS
from audit.record.money import format_money, format_signed
from tables import models as m

from .helpers import DAY

pytestmark = pytest.mark.django_db


def _client(name: str, *, pit_boss: bool, csrf: bool = False) -> Client:
    user = User.objects.create_user(name, password="a-long-test-password", is_staff=True)
    if pit_boss:
        user.groups.add(Group.objects.get(name="pit_boss"))
    else:
        user.user_permissions.add(
            *Permission.objects.filter(codename__in=["view_finding", "view_round"])
        )
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def _status(finding: Finding, action: str) -> str:
    return reverse("admin:audit_finding_status", kwargs={"pk": finding.pk, "action": action})


def test_a_pit_boss_works_a_finding_from_its_page_and_the_trail_shows_each_step(fault):
    """Acknowledge with a note, resolve with one, reopen: each an event of audit.findings,
    each back on the page it came from with what happened, and the page lists them in
    order - who, when, from what, the note."""
    finding = Finding.objects.get()
    page = reverse("admin:audit_finding_change", args=[finding.pk])
    boss = _client("pat", pit_boss=True)
    html = boss.get(page).content.decode()
    assert _status(finding, "acknowledge") in html and _status(finding, "resolve") in html
    assert _status(finding, "reopen") not in html  # an open finding cannot be reopened
    done = boss.post(
        _status(finding, "acknowledge"), {"note": "looking at the tape", "next": page}, follow=True
    )
    assert (
        done.redirect_chain[-1][0] == page
        and f"Finding {finding.pk} acknowledged." in done.content.decode()
    )
    boss.post(_status(finding, "resolve"), {"note": "short pay refunded, slip R-88", "next": page})
    html = boss.post(
        _status(finding, "reopen"), {"note": "slip never booked", "next": page}, follow=True
    ).content.decode()
    finding.refresh_from_db()
    assert (finding.status, finding.note, finding.status_changed_by) == (
        "open",
        "slip never booked",
        "pat",
    )
    steps = list(
        Event.objects.filter(stream="audit.findings")
        .order_by("version")
        .values_list("type", "payload")
    )
    assert [(t, p["previous"], p["note"], p["by"]) for t, p in steps] == [
        ("finding.acknowledged", "open", "looking at the tape", "pat"),
        ("finding.resolved", "acknowledged", "short pay refunded, slip R-88", "pat"),
        ("finding.reopened", "resolved", "slip never booked", "pat"),
    ]
    trail = html.split('class="trail"')[1].split("</ol>")[0]
    assert (
        trail.index("looking at the tape")
        < trail.index("slip R-88")
        < trail.index("slip never booked")
    )
    assert trail.count('class="by">pat<') == 3


def test_resolving_needs_a_note_and_a_status_that_allows_it(fault):
    finding = Finding.objects.get()
    boss = _client("pat", pit_boss=True)
    said = boss.post(_status(finding, "resolve"), {"note": "   "}, follow=True).content.decode()
    assert "needs a note" in said
    boss.post(_status(finding, "acknowledge"), {})
    said = boss.post(_status(finding, "acknowledge"), {}, follow=True).content.decode()
    assert "cannot become acknowledged" in said
    assert Event.objects.filter(stream="audit.findings").count() == 1
    assert boss.get(_status(finding, "resolve")).status_code == 405
    assert (
        boss.post(
            reverse("admin:audit_finding_status", kwargs={"pk": 999999, "action": "resolve"})
        ).status_code
        == 404
    )


def test_who_may_not_change_findings_gets_no_form_and_a_403(fault):
    finding = Finding.objects.get()
    clerk = _client("clerk", pit_boss=False)
    page = clerk.get(reverse("admin:audit_finding_change", args=[finding.pk])).content.decode()
    assert (
        _status(finding, "acknowledge") not in page
        and "needs the permission audit.change_finding" in page
    )
    assert clerk.post(_status(finding, "acknowledge"), {"note": "x"}).status_code == 403
    guarded = _client("pat", pit_boss=True, csrf=True)
    assert (
        guarded.post(_status(finding, "acknowledge"), {"note": "x"}).status_code == 403
    )  # no CSRF token
    assert (
        Finding.objects.get().status == "open"
        and not Event.objects.filter(stream="audit.findings").exists()
    )


def test_the_review_offers_the_forms_and_comes_back_to_the_round(fault):
    round_ = m.Round.objects.get(number=fault["round"])
    review = f"/admin/tables/round/T1/{DAY.isoformat()}/{round_.number}/"
    finding = Finding.objects.get()
    boss = _client("pat", pit_boss=True)
    html = boss.get(review).content.decode()
    assert _status(finding, "acknowledge") in html and f'name="next" value="{review}"' in html
    back = boss.post(_status(finding, "resolve"), {"note": "refunded", "next": review}, follow=True)
    assert back.redirect_chain[-1][0] == review
    html = back.content.decode()
    assert "Resolved" in html and "refunded" in html and _status(finding, "reopen") in html


def test_bulk_actions_resolve_with_the_note_or_refuse_without_one(fault):
    finding = Finding.objects.get()
    boss = _client("pat", pit_boss=True)
    url = reverse("admin:audit_finding_changelist")
    said = boss.post(
        url, {"action": "resolve", "_selected_action": [finding.pk], "note": ""}, follow=True
    )
    assert (
        "Resolving needs a note" in said.content.decode() and Finding.objects.get().status == "open"
    )
    said = boss.post(
        url,
        {"action": "resolve", "_selected_action": [finding.pk], "note": "paid back"},
        follow=True,
    )
    assert "Resolved 1 finding." in said.content.decode()
    assert (Finding.objects.get().status, Finding.objects.get().note) == ("resolved", "paid back")
    boss.post(url, {"action": "reopen", "_selected_action": [finding.pk], "note": ""})
    assert Finding.objects.get().status == "open"


def test_the_list_shows_amounts_as_money_and_the_message(admin_client, fault):
    finding = Finding.objects.get()
    html = admin_client.get(reverse("admin:audit_finding_changelist")).content.decode()
    assert f"expected win {format_signed(fault['right'], 'EUR')}" in html
    assert f"recorded win {format_signed(fault['wrong'], 'EUR')}" in html
    assert f"bet {fault['bet']}" in html and finding.message in html
    assert f'title="{escape(KINDS["wrong_payout"].sentence)}"' in html


def test_amounts_become_money_only_where_the_kind_says_they_are():
    assert amount_text("wrong_payout", "win +2500", "EUR") == "win +EUR 25.00"
    assert amount_text("missing_settlement", "lose -1000", "CZK") == "lose -CZK 10.00"
    assert (
        amount_text("illegal_bet", "500-50000", "EUR")
        == f"{format_money(500, 'EUR')} - {format_money(50000, 'EUR')}"
    )
    assert amount_text("illegal_bet", "<= 1250", "EUR") == "<= EUR 12.50"
    assert amount_text("illegal_bet", "2500 on box 3", "EUR") == "EUR 25.00 on box 3"
    assert amount_text("wrong_cashout_offer", "382", "JPY") == "JPY 382"
    assert amount_text("card_out_of_sequence", "6S", "EUR") == "6S"
    assert amount_text("missing_event", "17", "EUR") == "17"  # a version, not money
    assert amount_text("wrong_payout", "win +2500", None) == "win +2500"  # currency unknown


def test_a_finding_with_nothing_to_show_shows_one_dash():
    bare = Finding(kind="missing_event", bet="", expected="", recorded="")
    assert finding_amounts(bare, "EUR") == "-"
    full = Finding(kind="wrong_payout", bet="r4b2", expected="win +100", recorded="win +99")
    assert (
        finding_amounts(full, "EUR") == "bet r4b2, expected win +EUR 1.00, recorded win +EUR 0.99"
    )


def test_every_kind_has_a_sentence_the_screens_can_show():
    for name, kind in KINDS.items():
        assert kind_sentence(name) == kind.sentence and kind.sentence.strip()
    assert kind_sentence("no_such_kind") == "no_such_kind"
