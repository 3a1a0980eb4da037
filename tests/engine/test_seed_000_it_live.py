"""Seed 000, house rules: the live "common hand" game (preset it-live)."""

from __future__ import annotations

from datetime import UTC, datetime

from tables.engine.dealing import Stake
from tables.engine.math.cashout import cashout_offer
from tables.engine.math.composition import remaining
from tables.engine.presets import PRESETS
from tables.engine.replay import replay
from tables.engine.simulate import deal_table

from .helpers import (
    Choices,
    Table,
    actions_of,
    edit,
    find,
    insert_before_last,
    kinds,
    layout,
    nets,
    rewrap,
    system_offers,
    targets,
)

RULES = PRESETS["it-live"]


def test_deal_order_without_hole_card() -> None:
    """Seed 000 (000:7, 000:91): six decks; one card face up to each hand, one to the
    dealer last, a second card face up to the hands only; the dealer's second card comes
    after the hands."""
    assert RULES.decks == 6 and RULES.hole_card == "none"
    table = Table(RULES, layout(RULES, ["TS 9H", "TC 8D"], "7D TH"))
    dealt = table.deal([100, 100])
    assert targets(dealt) == [
        (1, 0, "up"),
        (2, 0, "up"),
        (None, None, "up"),
        (1, 0, "up"),
        (2, 0, "up"),
        (None, None, "up"),
    ]
    assert not any(kind == "card.revealed" for kind, _ in dealt.events)
    assert table.replay().findings == ()


def test_the_dealer_plays_every_hand_by_basic_strategy() -> None:
    """Seed 000 (000:92): the dealer plays each hand by the basic strategy, whatever the
    players would like; a decision against the strategy is an illegal decision."""
    table = Table(RULES, layout(RULES, ["TS 6H"], "7D TH", play="2C 9C"))
    dealt = table.deal([100], "stand")  # the policy is not asked: 16 v 7 hits
    assert actions_of(dealt)[:1] == ["hit"]
    events = edit(table.events, find(table.events, "decision.made"), action="stand")
    assert kinds(replay(events).findings) == ["illegal_decision"]


def test_a_hand_of_17_or_more_stands_and_below_11_draws() -> None:
    """Seed 000 (000:110-111): a hand of 17 or more gets no more cards - soft 17 too, which
    the chart would double against a 3 - and a hand below 11 must draw."""
    table = Table(RULES, layout(RULES, ["AS 6H", "2S 3H"], "3D TH", play="4C TC", draws="5C"))
    dealt = table.deal([100, 100])
    assert actions_of(dealt) == ["stand", "hit", "hit", "stand"]
    assert table.replay().findings == ()


def test_doubles_are_opt_in_stakes_and_the_hand_gets_one_card() -> None:
    """Seed 000 (000:112-115): where the strategy doubles the hand gets exactly one card;
    each player chooses to double its own stake or not."""
    table = Table(RULES, layout(RULES, ["6S 5H"], "6D TD", play="TC", draws="9D"))
    stakes = [Stake("a", 1, 100, player="A"), Stake("b", 1, 100, player="B")]
    dealt = table.deal(stakes, choices=Choices(opt_in=lambda bet, kind: bet.id == "a"))
    assert actions_of(dealt) == ["double"]
    assert nets(dealt) == {"a": ("win", 100), "b": ("win", 100), "a-d": ("win", 100)}
    assert table.replay().findings == ()


def test_second_split_hand_is_opt_in_and_split_once_without_double() -> None:
    """Seed 000 (000:117-122): the dealer splits, every player plays the first hand and may
    stake the second; a split hand may not split again nor double (11 after the split
    is hit, the second 8-8 plays as 16)."""
    table = Table(RULES, layout(RULES, ["8S 8H"], "6D TD", play="3C TC 8C", draws="9D"))
    stakes = [Stake("a", 1, 100, player="A"), Stake("b", 1, 100, player="B")]
    dealt = table.deal(stakes, choices=Choices(opt_in=lambda bet, kind: bet.id == "a"))
    assert actions_of(dealt) == ["split", "hit", "stand"]
    assert nets(dealt) == {"a": ("win", 100), "b": ("win", 100), "a-s1": ("win", 100)}
    result = table.replay()
    assert result.findings == ()
    hit = find(table.events, "decision.made", 1)
    assert kinds(replay(edit(table.events, hit, action="double")).findings) == ["illegal_decision"]


def test_split_aces_take_one_card_and_21_is_not_a_natural() -> None:
    """Seed 000 (000:123-124): split aces get one card each; two cards making 21 after a
    split are 21, paid even money, not a blackjack."""
    table = Table(RULES, layout(RULES, ["AS AH"], "6D TD", play="KC 9C", draws="4D"))
    dealt = table.deal([Stake("a", 1, 100)], choices=Choices(opt_in=lambda bet, kind: True))
    assert actions_of(dealt) == ["split"]
    assert nets(dealt) == {"a": ("win", 100), "a-s1": ("push", 0)}
    assert table.replay().findings == ()


def test_natural_pays_3_to_2_rounded_down() -> None:
    """Seed 000 (000:100): a blackjack pays 3:2; on an odd stake the half minor unit stays
    with the house (rounding policy "down")."""
    table = Table(RULES, layout(RULES, ["AS KH"], "9D 8D"))
    dealt = table.deal([15])
    assert nets(dealt) == {"r1b1": ("natural", 22)}


def test_insurance_is_exactly_half_the_stake() -> None:
    """Seed 000 (000:127): insurance is half the original stake, paid 2:1; any other
    amount is an illegal bet (and its recorded payout then a wrong one)."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "AD KD"))
    table.deal([100], choices=Choices(insure=lambda bet: 50))
    assert table.replay().findings == ()
    index = find(table.events, "bet.placed", kind="insurance")
    assert kinds(replay(edit(table.events, index, amount=40)).findings) == [
        "illegal_bet",
        "wrong_payout",
    ]


def test_dealer_completes_the_round_when_every_hand_busts() -> None:
    """Seed 000 (000:133, house rule 4): the dealer plays out the hand even when every
    player has busted."""
    table = Table(RULES, layout(RULES, ["TS 6H"], "7D 5D", play="KC", draws="9C"))
    dealt = table.deal([100])
    assert dealt.round is not None and dealt.round.dealer == ["7D", "5D", "9C"]
    assert nets(dealt) == {"r1b1": ("lose", -100)}
    assert table.replay().findings == ()


def test_cash_out_offers_only_between_11_and_16() -> None:
    """Seed 000 (000:107-111): a cash-out is offered on hands of 11-16, for an amount the
    system computes "su base statistica" (000:108): the hand's expected value from the
    cards left in the shoe, less it-live's 2% margin, rounded down - 13 against a 7 with
    three cards out is worth 0.73 of the stake, so 100 is offered 71. The player leaves
    the hand with the amount; an offer on a hand below 11 is illegal."""
    table = Table(RULES, layout(RULES, ["TS 3H"], "7D TD", play="2C 5C"))
    offer = Choices(offer=system_offers, accept=lambda bet, amount: True)
    dealt = table.deal([100], choices=offer)
    fair = cashout_offer(
        ["TS", "3H"], "7D", remaining(6, ["TS", "7D", "3H"]), stake=100, rules=RULES, margin=(0, 1)
    )
    assert fair.amount == 73
    assert nets(dealt) == {"r1b1": ("cashed_out", 71 - 100)}
    assert table.replay().findings == ()
    low = Table(RULES, layout(RULES, ["4S 6H"], "7D TD", play="9C"))
    low.deal([100])
    at = find(low.events, "decision.made")
    spliced = rewrap(
        low.events[:at]
        + [{"type": "cashout.offered", "payload": {"round": 1, "bet": "r1b1", "amount": 60}}]
        + low.events[at:]
    )
    assert kinds(replay(spliced).findings) == ["illegal_decision"]


def test_a_cash_out_is_kept_when_the_round_is_voided() -> None:
    """Seed 000 (000:109): a cash-out taken stands even when the dealer voids the round;
    every other stake goes back."""
    table = Table(RULES, layout(RULES, ["TS 3H", "TC 8H"], "7D TD", play="2C 5C"))
    offer = Choices(
        offer=lambda bet, hand, up, system: system(bet) if hand.box == 1 else None,
        accept=lambda bet, amount: True,
    )
    table.deal([100, 100], choices=offer)
    voided = rewrap(
        table.events[:-1]
        + [
            {
                "type": "round.voided",
                "payload": {
                    "round": 1,
                    "reason": "cards left in the discard holder",
                    "authorised_by": "pit1",
                },
            }
        ]
    )
    result = replay(voided)
    assert result.findings == ()
    expected = {bet: (s.outcome, s.net) for bet, s in result.rounds[0].expected.items()}
    assert expected == {"r1b1": ("cashed_out", 71 - 100), "r1b2": ("push", 0)}


def test_an_exposed_card_forces_a_reshuffle() -> None:
    """Seed 000 (000:132, house rule 3): a card exposed from the shoe is burned, the round
    finished and the whole shoe reshuffled; a next round from the same shoe is a finding."""
    table = Table(
        RULES,
        layout(RULES, ["TS 9H"], "7D TD") + " " + layout(RULES, ["TC 9C"], "7H TH"),
        known=False,
    )
    table.deal([100])
    table.deal([100])
    settled = find(table.events, "round.settled")
    burn = {
        "type": "card.burned",
        "payload": {"shoe": "S1", "round": 1, "card": "5S", "face": "up", "reason": "exposed"},
    }
    spliced = rewrap(table.events[:settled] + [burn] + table.events[settled:])
    assert kinds(replay(spliced).findings) == ["shoe_procedure"]


def test_a_card_drawn_by_mistake_at_17_is_a_procedure_error() -> None:
    """Seed 000 (000:134, house rule 5): the dealer at 17-21 drawing a card is a dealer
    procedure error (the card is burned and does not count)."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "7D TD", draws="4C"))
    dealt = table.deal([100])
    assert nets(dealt) == {"r1b1": ("win", 100)}
    events = insert_before_last(
        table.events,
        "card.dealt",
        {"round": 1, "box": None, "hand": None, "card": "4C", "face": "up"},
    )
    assert kinds(replay(events).findings) == ["dealer_procedure"]


def test_the_strategy_is_the_one_generated_from_the_rules() -> None:
    """Seed 000 (000:92-94, issue 4 item 6): the basic strategy the dealer follows is the
    one computed from it-live's rules (no hole card, so a dealer ten or ace may still turn
    a natural that takes every stake), not a typed-in chart. Where the usual peek-game
    chart doubles or splits against a ten or an ace, it-live's strategy hits: 11 v T,
    8,8 v T, 8,8 v A, A,A v A. Each plays clean; the old chart's play is against the
    strategy and an illegal decision."""
    cases = [
        (["6S 5H"], "TD 7C", "9C", ["hit", "stand"], "double"),  # 11 v T: 20, then stands
        (["8S 8H"], "TD 7C", "4C", ["hit", "stand"], "split"),  # 8,8 v T: 20
        (["8S 8H"], "AD 6C", "3C", ["hit", "stand"], "split"),  # 8,8 v A: 19
        (["AS AH"], "AD 6C", "8C", ["hit", "stand"], "split"),  # A,A v A: soft 20
    ]
    for players, dealer, play, plays, old_chart in cases:
        table = Table(RULES, layout(RULES, players, dealer, play=play))
        dealt = table.deal([100])
        assert actions_of(dealt) == plays, (players, dealer)
        assert table.replay().findings == ()
        events = edit(table.events, find(table.events, "decision.made"), action=old_chart)
        found = replay(events).findings
        assert kinds(found) == ["illegal_decision"], (players, dealer)
        assert found[0].expected == "hit" and found[0].recorded == old_chart


def test_small_pairs_against_a_two_or_three_hit_without_double_after_split() -> None:
    """Seed 000 (000:122, no double after a split): 2,2 and 3,3 against a 2 or 3 and 6,6
    against a 2 are hit, split from a 4 on (6,6 from a 3) - the no-double-after-split
    cells of the computed strategy."""
    for players, dealer, wanted in (
        (["2S 2H"], "2D TC", "hit"),
        (["3S 3H"], "3D TC", "hit"),
        (["6S 6H"], "2D TC", "hit"),
        (["2S 2H"], "4D TC", "split"),
        (["6S 6H"], "3D TC", "split"),
    ):
        table = Table(RULES, layout(RULES, players, dealer))
        dealt = table.deal([100])
        assert actions_of(dealt)[0] == wanted, (players, dealer)
        assert table.replay().findings == ()


def test_the_cash_out_margin_is_a_rule_set_parameter() -> None:
    """Seed 000 (000:108): the offer is "creata dal sistema su base statistica"; the seed
    states no margin, so it-live takes the house default of 2% (1:50) and a table may set
    its own (``cashout_margin`` override); every other game has none (0:1)."""
    assert RULES.cashout_margin == (1, 50)
    assert RULES.with_overrides({"cashout_margin": "3:100"}).cashout_margin == (3, 100)
    assert RULES.with_overrides({"cashout_margin": "0:1"}).cashout_margin == (0, 1)
    assert RULES.as_overrides()["cashout_margin"] == "1:50"
    assert all(p.cashout_margin == (0, 1) for n, p in PRESETS.items() if n != "it-live")
    for bad in ("1:1", "3:2", "x"):
        try:
            RULES.with_overrides({"cashout_margin": bad})
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted as a margin")


def test_offers_are_checked_from_the_cards_left_with_or_without_the_shoes_order() -> None:
    """Seed 000 (000:108): replay values each offer from the cards left in the shoe -
    from the recorded order where the shuffle recorded one, else from every card dealt
    so far - and a table the engine dealt replays clean either way."""
    for known in (True, False):
        table = deal_table(
            RULES,
            seed="offers",
            rounds=30,
            start=datetime(2026, 11, 29, tzinfo=UTC),
            bettors=2,
            hashed=False,
            order_known=known,
        )
        assert sum(e["type"] == "cashout.offered" for e in table.events) > 10
        assert replay(table.events).findings == ()
