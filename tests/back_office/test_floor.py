"""The floor: alerts derived from findings and checks (a read model), acknowledged as
events in ``audit.alerts``; the dashboard, its figures and its poll."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from audit.models import Event, Finding
from audit.record.money import format_money, format_signed
from tables import floor
from tables import models as m
from tables.replay_service import replay_table

from ..audit.tampering import tamper
from .helpers import DAY, START, append, dealt

pytestmark = pytest.mark.django_db


def _pit_boss(name: str = "pat") -> User:
    user = User.objects.create_user(name, password="a-long-test-password", is_staff=True)
    user.groups.add(Group.objects.get(name="pit_boss"))
    return user


def test_a_short_pay_raises_one_high_alert_that_names_its_finding(fault):
    """Replay stores the short pay's finding and, right after, its alert: high, on the
    table and day, pointing at the finding. Replaying again raises nothing more."""
    finding = Finding.objects.get()
    alert = m.Alert.objects.get()
    assert (alert.kind, alert.severity, alert.stream, alert.gaming_day) == (
        "finding",
        "high",
        "T1",
        DAY,
    )
    assert alert.finding == finding and alert.key == f"finding:{finding.fingerprint}"
    assert alert.message == finding.message and alert.acknowledged_at is None
    replay_table(stream="T1", full=True)
    assert floor.alerts_from_findings() == [] and m.Alert.objects.count() == 1


def test_only_high_and_critical_findings_raise_alerts(fault):
    """A medium finding (a procedure broken, the money right) waits in the findings list,
    it does not alarm the floor."""
    medium = Finding.objects.get()
    medium.pk, medium.fingerprint, medium.identity = None, "f" * 64, "f" * 64
    medium.severity, medium.kind = "medium", "illegal_decision"
    medium.save()
    m.Alert.objects.all().delete()
    raised = floor.alerts_from_findings()
    assert [a.finding.severity for a in raised] == ["high"]


def test_acknowledging_an_alert_is_an_event_with_who_when_and_the_note(fault):
    """The acknowledgement is an alert.acknowledged in audit.alerts, by the person
    (actor user:<name>), with the alert's key, kind, table, finding and the note; the
    row keeps who, when, the note and the event's version. A second one is refused and
    appends nothing."""
    alert = m.Alert.objects.get()
    boss = _pit_boss()
    done = floor.alert_acknowledge(
        alert_id=alert.pk, user=boss, note="  dealer told, refund paid  "
    )
    event = Event.objects.get(stream=floor.ALERTS_STREAM)
    assert event.type == "alert.acknowledged" and event.actor == "user:pat"
    assert event.payload == {
        "alert": alert.key,
        "kind": "finding",
        "table": "T1",
        "finding": alert.finding.fingerprint,
        "by": "pat",
        "note": "dealer told, refund paid",
    }
    assert (done.acknowledged_by, done.note, done.event_version) == (
        "pat",
        "dealer told, refund paid",
        event.version,
    )
    assert done.acknowledged_at == event.occurred_at
    with pytest.raises(floor.AlertError, match="acknowledged by pat"):
        floor.alert_acknowledge(alert_id=alert.pk, user=boss, note="again")
    assert Event.objects.filter(stream=floor.ALERTS_STREAM).count() == 1


def test_a_table_silent_too_long_raises_one_alert_per_silence(settings):
    """A table whose gaming day is open and whose stream has recorded nothing for longer
    than FLOOR_SILENT_AFTER_SECONDS raises one medium alert (checking again raises no
    second); not before that, and not once its day is closed. The round is recorded on
    its own gaming day (the store's clock set to it): the check looks at today's and
    yesterday's gaming days, so a record made on the test's own date would make it pass
    or fail by the calendar."""
    settings.PROJECT_ON_APPEND = False
    settings.FLOOR_SILENT_AFTER_SECONDS = 600
    append("T1", dealt("hoyle", rounds=8), now=START + timedelta(hours=2))
    replay_table(stream="T1")
    head = Event.objects.filter(stream="T1").order_by("-version").first()
    assert floor.alerts_check_silent(now=head.recorded_at + timedelta(seconds=600)) == []
    later = head.recorded_at + timedelta(seconds=601)
    [alert] = floor.alerts_check_silent(now=later)
    assert (alert.kind, alert.severity, alert.stream) == ("silent_table", "medium", "T1")
    assert (
        alert.key == f"silent:T1:{head.version}"
        and "has recorded nothing for 10 min" in alert.message
    )
    assert floor.alerts_check_silent(now=later + timedelta(hours=1)) == []


def test_a_closed_table_is_not_silent(settings):
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=3)
    closed = {
        **events[-1],
        "id": "00000000-0000-4000-8000-00000000c105",
        "type": "table.closed",
        "payload": {"gaming_day": DAY.isoformat()},
    }
    append("T1", [*events, closed])
    replay_table(stream="T1")
    head = Event.objects.filter(stream="T1").order_by("-version").first()
    assert head.type == "table.closed"
    assert floor.alerts_check_silent(now=head.recorded_at + timedelta(days=0, hours=3)) == []


def test_a_failed_verification_is_a_critical_alert(fault):
    """The periodic verification's task finding a broken chain raises a critical alert
    naming the problem (the floor hears of it through the task's result); the same
    problems found again raise nothing new."""
    from audit.tasks import verify_chains_task

    event = Event.objects.filter(stream="T1").order_by("version")[3]
    tamper(f"UPDATE audit_event SET actor = 'forger' WHERE position = {event.position}")
    verify_chains_task.apply()
    alert = m.Alert.objects.get(kind="verify_failed")
    assert alert.severity == "critical" and "T1" in alert.message and alert.stream == ""
    verify_chains_task.apply()
    assert m.Alert.objects.filter(kind="verify_failed").count() == 1


def test_the_figures_show_the_house_result_positive_when_the_house_won(fault):
    """Per table: the handle, the house result (the players' recorded net negated), the
    recomputed one and the house result % of handle, in the table's currency; the day's total per currency;
    today's open findings by severity."""
    day = m.TableDay.objects.get()
    figures = floor.floor_figures(
        day=DAY, today=DAY, now=Event.objects.order_by("-position").first().recorded_at
    )
    [row] = figures["tables"]
    assert (
        row["house_result"] == -day.recorded_net
        and row["house_result_recomputed"] == -day.expected_net
    )
    assert row["handle_text"] == format_money(day.handle, "EUR")
    assert row["house_result_text"] == format_signed(-day.recorded_net, "EUR")
    assert row["result_of_handle_text"] == floor.result_of_handle_text(
        -day.recorded_net, day.handle
    )
    # the short pay kept one unit from the player: the recorded house result is one more
    assert row["house_result"] == row["house_result_recomputed"] + 1
    assert figures["totals"][0]["handle"] == day.handle and figures["totals"][0]["tables"] == 1
    assert figures["open_findings"] == {"critical": 0, "high": 1, "medium": 0, "low": 0}


def test_the_result_of_handle_is_the_house_result_over_the_handle_rounded_half_away_from_zero():
    assert floor.result_of_handle_text(235, 10_000) == "2.35%"
    assert floor.result_of_handle_text(-120, 10_000) == "-1.20%"
    assert (
        floor.result_of_handle_text(1, 3) == "33.33%"
        and floor.result_of_handle_text(2, 3) == "66.67%"
    )
    assert (
        floor.result_of_handle_text(1, 200_000) == "0.00%"
        and floor.result_of_handle_text(-1, 200_000) == "0.00%"
    )
    assert floor.result_of_handle_text(5, 0) == "n/a"


def test_the_floor_is_the_admin_home_page_and_its_poll_sends_every_part(admin_client, fault):
    """/admin/ is the floor: the alert with its acknowledge form, the open findings, the
    table with its money; / and "View site" lead there; the stock index moved to
    /admin/apps/; the poll answers JSON with the figures and each part of the page."""
    page = admin_client.get("/admin/")
    assert page.status_code == 200 and "admin/floor/dashboard.html" in [
        t.name for t in page.templates
    ]
    html = page.content.decode()
    alert = m.Alert.objects.get()
    assert (
        f'id="alert-{alert.pk}"' in html and reverse("floor-acknowledge", args=[alert.pk]) in html
    )
    assert format_money(m.TableDay.objects.get().handle, "EUR") in html
    assert 'href="/admin/"' in html  # "View site"
    assert admin_client.get("/").url == "/admin/"
    assert admin_client.get("/admin/apps/").status_code == 200
    poll = admin_client.get(reverse("floor-figures"))
    data = poll.json()
    assert data["gaming_day"] == DAY.isoformat() and data["alerts_waiting"] == 1
    assert (
        set(data["html"]) == {"severity", "tables", "alerts"}
        and f'id="alert-{alert.pk}"' in data["html"]["alerts"]
    )
    assert Client().get("/admin/").status_code == 302  # signed out: to the login


def test_the_next_day_counts_the_findings_still_open_from_earlier_days(fault, admin_client):
    """The tiles count the day's own open findings; the floor of the next day says the
    short pay is still open from an earlier day and links to it, so "0 high" is not read
    as nothing waiting. Resolved, it is no longer counted."""
    later = DAY + timedelta(days=1)
    assert (
        floor.floor_figures(day=DAY, today=DAY, now=Event.objects.last().recorded_at)[
            "open_findings_earlier"
        ]
        == 0
    )
    figures = floor.floor_figures(day=later, today=later, now=Event.objects.last().recorded_at)
    assert figures["open_findings"] == {"critical": 0, "high": 0, "medium": 0, "low": 0}
    assert figures["open_findings_earlier"] == 1
    page = admin_client.get(f"/admin/?day={later.isoformat()}").content.decode()
    link = re.search(
        r'id="open-earlier"><a href="([^"]+)">1 more open from earlier gaming days</a>', page
    )
    assert link is not None
    listed = admin_client.get(html.unescape(link.group(1)))
    assert listed.status_code == 200 and list(listed.context["cl"].result_list) == [
        Finding.objects.get()
    ]
    Finding.objects.update(status=Finding.Status.RESOLVED)
    assert floor.open_findings_before(later) == 0
    assert (
        "None open from earlier gaming days."
        in admin_client.get(f"/admin/?day={later.isoformat()}").content.decode()
    )


def test_only_who_may_change_alerts_acknowledges_them_by_a_csrf_protected_post(fault):
    alert = m.Alert.objects.get()
    url = reverse("floor-acknowledge", args=[alert.pk])
    clerk = User.objects.create_user("clerk", password="a-long-test-password", is_staff=True)
    client = Client()
    client.force_login(clerk)
    assert client.post(url, {"note": "x"}).status_code == 403
    assert "Acknowledge</button>" not in client.get("/admin/").content.decode()
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(_pit_boss())
    assert guarded.post(url, {"note": "x"}).status_code == 403  # no CSRF token
    assert guarded.get(url).status_code == 405
    assert not Event.objects.filter(stream=floor.ALERTS_STREAM).exists()
    boss = Client()
    boss.force_login(User.objects.get(username="pat"))
    done = boss.post(url, {"note": "seen, pit informed", "next": "/admin/"}, follow=True)
    assert done.redirect_chain[-1][0] == "/admin/" and "Alert acknowledged" in done.content.decode()
    html = done.content.decode()
    assert (
        'Acknowledged by <strong class="by">pat</strong>' in html and "seen, pit informed" in html
    )
    assert boss.post(url, {"note": "again"}, follow=True).status_code == 200
    assert Event.objects.filter(stream=floor.ALERTS_STREAM).count() == 1
    # a next that leaves the site goes back to the floor instead
    alert2 = m.Alert.objects.create(
        key="silent:T1:1",
        kind="silent_table",
        severity="medium",
        stream="T1",
        message="x",
        raised_at=alert.raised_at,
    )
    away = boss.post(
        reverse("floor-acknowledge", args=[alert2.pk]), {"next": "https://evil.example/"}
    )
    assert away.url == "/admin/"
