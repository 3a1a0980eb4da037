"""Rounds, table days and shoes are addressed by natural keys in the admin and the API,
so a link made before a rebuild of the read models (which gives every row a new id)
still opens the same thing after it."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from audit.models import Finding
from tables import models as m

from .helpers import DAY

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("how", ["rebuild_projections", "replay_day --full"])
def test_an_old_round_link_opens_the_same_round_after_the_read_models_are_rebuilt(
    admin_client, fault, how
):
    """The links the findings list, the round list and the review give before a rebuild
    open the same round, table day and shoe after it, though every row has a new id."""
    number = fault["round"]
    before = m.Round.objects.get(number=number)
    findings = admin_client.get("/admin/audit/finding/").content.decode()
    link = f"/admin/tables/round/T1/{DAY.isoformat()}/{number}/"
    assert f'class="round-review" href="{link}?bet=' in findings
    rounds = admin_client.get("/admin/tables/round/").content.decode()
    assert f'href="{link}"' in rounds
    review = admin_client.get(link).content.decode()
    shoe_link = f"/admin/tables/shoe/T1/{before.shoe.shuffled_version}/"
    assert shoe_link in review
    api = admin_client.get("/api/findings").json()["results"][0]["round_url"]
    assert api.endswith(f"/api/rounds/T1/{DAY.isoformat()}/{number}")

    if how == "rebuild_projections":
        call_command("rebuild_projections")
    else:
        call_command("replay_day", "--stream", "T1", "--full")
    after = m.Round.objects.get(number=number)
    assert after.pk != before.pk  # the surrogate id moved on: an id link would now be dead

    response = admin_client.get(link)
    assert response.status_code == 200 and response.context["original"].pk == after.pk
    assert f"round {number}" in response.content.decode()
    shoe = admin_client.get(shoe_link)
    assert (
        shoe.status_code == 200
        and shoe.context["original"].shuffled_version == before.shoe.shuffled_version
    )
    day = admin_client.get(f"/admin/tables/tableday/T1/{DAY.isoformat()}/")
    assert day.status_code == 200 and day.context["original"].gaming_day == DAY
    detail = admin_client.get(api)
    assert detail.status_code == 200 and detail.json()["number"] == number
    assert Finding.objects.get().round == number


def test_a_key_that_names_nothing_is_not_found(admin_client, fault):
    for url in (
        f"/admin/tables/round/T1/{DAY.isoformat()}/999/",
        "/admin/tables/round/T9/2026-11-29/1/",
        "/admin/tables/round/T1/2026-13-45/1/",
        "/admin/tables/tableday/T1/2026-01-01/",
        "/admin/tables/shoe/T1/999999/",
    ):
        assert admin_client.get(url).status_code == 404, url
    # the change URL takes the key too, and a numeric id is still understood
    round_ = m.Round.objects.get(number=3)
    assert (
        admin_client.get(f"/admin/tables/round/T1/{DAY.isoformat()}/3/change/").context["original"]
        == round_
    )
    assert (
        admin_client.get(f"/admin/tables/round/{round_.pk}/change/").context["original"] == round_
    )
