"""Read models: kept current after every append (on commit), rebuilt from scratch equal
to the live ones, and a round's hands, cards and settlements as the engine replays them."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tables import models as m
from tables.projections import first_difference, rebuild, snapshot

from .helpers import DAY, append, dealt

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kept", [True, False], ids=["fold-kept-in-memory", "refold-from-shuffle"])
@pytest.mark.parametrize("preset", ["hoyle", "it-sabot", "it-live"])
def test_live_projection_equals_a_rebuild_from_scratch(
    preset, kept, django_capture_on_commit_callbacks, monkeypatch
):
    """Appended in chunks that cut rounds and shoes anywhere, each followed (on commit) by
    an incremental fold - going on from the previous fold kept in memory, or refolding
    from the last shuffle as another process would - the read models equal a full
    rebuild row by row (it-sabot's pushes carry over to the next round, across shoes too)."""
    import tables.feed

    tables.feed.CACHE.clear()
    monkeypatch.setattr(tables.feed.CACHE, "size", 64 if kept else 0)
    events = dealt(preset, rounds=45, table="T1")
    assert append("T1", events, chunk=61, project=True) == -(-len(events) // 61)
    assert len(tables.feed.CACHE) == (1 if kept else 0)  # the day's fold, kept at its head
    assert m.Round.objects.count() == 45
    assert m.Shoe.objects.count() >= 2
    live, rebuilt = rebuild("T1")
    assert first_difference(live, rebuilt) is None
    assert live == rebuilt


def test_nothing_is_enqueued_for_an_append_that_rolls_back(django_capture_on_commit_callbacks):
    """The projection task is sent on commit only."""
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                append("T1", dealt(rounds=2))
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
    assert callbacks == []
    assert not m.Round.objects.exists()


def test_rebuild_command_proves_equality_and_names_the_first_difference(
    capsys, django_capture_on_commit_callbacks
):
    append("T1", dealt(rounds=12), chunk=50, project=True)
    append("T2", dealt("it-classic", rounds=12, table="T2"), chunk=50, project=True)
    call_command("rebuild_projections")
    assert "equal to the live projection" in capsys.readouterr().out
    call_command("rebuild_projections", "--stream", "T2")
    # a live row that replay would not produce: the rebuild tells which
    bet = m.Bet.objects.filter(round__table__stream="T1").order_by("round__number", "bet").first()
    m.Bet.objects.filter(pk=bet.pk).update(expected_net=(bet.expected_net or 0) + 7)
    with pytest.raises(CommandError) as error:
        call_command("rebuild_projections", "--stream", "T1")
    assert error.value.returncode == 1
    assert f"'{bet.bet}'" in str(error.value) and "bet (" in str(error.value)
    # the rebuild replaced the bad row: now they agree again
    call_command("rebuild_projections", "--stream", "T1")


def test_a_hand_or_bet_left_without_its_round_is_named_by_the_rebuild_and_removed(
    capsys, django_capture_on_commit_callbacks
):
    """The database holds no foreign key of a hand's or a bet's round (the check cost a
    table's replay most of its commit): a row left pointing at a round gone - written
    past the projection - is what the full rebuild names, and it is gone after it."""
    append("T1", dealt(rounds=6), chunk=50, project=True)
    call_command("rebuild_projections")
    gone = m.Round.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    bet = m.Bet.objects.order_by("pk").first()
    m.Bet.objects.create(
        round_id=gone, bet="stray", box=1, hand=0, kind="main", amount=500, matches=True
    )
    m.Hand.objects.create(round_id=gone, box=1, number=0, total=12, soft=False, bust=False)
    assert snapshot()["without a round"] == [("hand", 1), ("bet", 1)]
    with pytest.raises(CommandError) as error:
        call_command("rebuild_projections")
    assert error.value.returncode == 1
    assert "without a round ('hand', 1) is live but not in the rebuilt projection" in str(
        error.value
    )
    assert snapshot()["without a round"] == [] and m.Bet.objects.filter(bet=bet.bet).exists()
    capsys.readouterr()
    call_command("rebuild_projections")
    out = capsys.readouterr().out
    assert "equal to the live projection" in out and "without a round" not in out


def test_a_round_holds_the_engines_hands_cards_and_settlements(django_capture_on_commit_callbacks):
    """hoyle peeks: the dealer's hole card is dealt face down and revealed later; every
    box's cards and decisions are there; every bet's recorded and recomputed settlement
    agree on a legal record."""
    append("T1", dealt("hoyle", rounds=20), chunk=100, project=True)
    rounds = list(m.Round.objects.filter(table__stream="T1", gaming_day=DAY).order_by("number"))
    assert [r.number for r in rounds] == list(range(1, 21))
    assert all(r.status == "settled" and r.recorded_net == r.expected_net for r in rounds)
    assert not m.Bet.objects.filter(matches=False).exists()
    played = [r for r in rounds if r.hands.get(box=0).cards[1]["revealed_version"] is not None]
    assert played
    dealer = played[0].hands.get(box=0)
    assert dealer.cards[0]["face"] == "up" and dealer.cards[1]["face"] == "down"
    assert dealer.cards[1]["revealed_version"] > dealer.cards[1]["version"]
    for round_ in rounds:
        boxes = round_.hands.exclude(box=0)
        assert boxes.exists()
        assert all(len(h.cards) >= 2 or h.from_split or h.surrendered for h in boxes)
        versions = round_.versions
        assert versions == sorted(versions) and versions[0] == round_.first_version
    day = m.TableDay.objects.get(table__stream="T1", gaming_day=DAY)
    assert day.rounds == 20 and day.bets == m.Bet.objects.count()
    assert snapshot("T1")["round"]


def test_a_table_days_mismatched_bets_are_found_by_their_own_index(
    django_capture_on_commit_callbacks,
):
    """Reconciliation asks every table-day for the bets whose recorded settlement differs
    (tables.models.mismatched_bets): exactly those, and on PostgreSQL through the partial
    index of such bets, so the question does not read every bet of every table (it did:
    a scan of the whole bets table, once a table-day)."""
    from django.db import connection, transaction

    append("T1", dealt("hoyle", rounds=6, table="T1"), project=True)
    append("T2", dealt("hoyle", rounds=6, table="T2"), project=True)
    table = m.Table.objects.get(stream="T1")
    assert not m.mismatched_bets(table, DAY).exists()
    wrong = m.Bet.objects.filter(round__table=table).order_by("pk").first()
    other = m.Bet.objects.filter(round__table__stream="T2").order_by("pk").first()
    m.Bet.objects.filter(pk__in=[wrong.pk, other.pk]).update(matches=False)
    assert list(m.mismatched_bets(table, DAY)) == [wrong]
    if connection.vendor == "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SET LOCAL enable_seqscan = off"
            )  # the plan a large table gets, on a small one
            plan = m.mismatched_bets(table, DAY).explain()
        assert "tables_bet_mismatched" in plan, plan


def test_a_rounds_bets_are_found_by_the_unique_index_that_leads_with_the_round(
    django_capture_on_commit_callbacks,
):
    """A bet has one index on its round beside the partial one of mismatched bets: the
    unique (round, bet), which serves the look-ups, joins and deletes by round - a
    second, of round alone, was one more entry written for every bet."""
    from django.db import connection, transaction

    append("T1", dealt("hoyle", rounds=3, table="T1"), project=True)
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, m.Bet._meta.db_table)
    on_round = sorted(
        name
        for name, c in constraints.items()
        if c["columns"]
        and c["columns"][0] == "round_id"
        and (c["index"] or c["unique"])
        and not c["foreign_key"]
    )
    assert on_round == ["tables_bet_mismatched", "tables_bet_unique"], on_round
    round_ = m.Round.objects.filter(table__stream="T1").first()
    assert m.Bet.objects.filter(round=round_).count() == round_.bets.count() > 0
    if connection.vendor == "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SET LOCAL enable_seqscan = off"
            )  # the plan a large table gets, on a small one
            plan = m.Bet.objects.filter(round=round_).explain()
        assert "tables_bet_unique" in plan, plan
