"""Each documented finding kind, produced by the tampering that should produce it."""

from __future__ import annotations

from tables.engine.dealing import Stake
from tables.engine.presets import PRESETS
from tables.engine.replay import replay

from .helpers import Choices, Table, edit, find, kinds, layout, system_offers

HOYLE = PRESETS["hoyle"]
LIVE = PRESETS["it-live"]


def _hoyle() -> Table:
    table = Table(HOYLE, layout(HOYLE, ["TS 9H", "TC 7C"], "7D TD"))
    table.deal([1000, 1000])
    return table


def test_a_card_to_the_wrong_box_is_deal_order() -> None:
    """Seed 004 (004:27): the first card goes to the first box; a first card recorded on
    the second box is out of the deal order."""
    table = _hoyle()
    found = kinds(replay(edit(table.events, find(table.events, "card.dealt"), box=2)).findings)
    assert found[0] == "deal_order"


def test_a_card_to_a_box_without_a_bet_is_a_misdeal() -> None:
    """A card dealt to a box that has no bet is a misdeal."""
    table = _hoyle()
    found = kinds(replay(edit(table.events, find(table.events, "card.dealt"), box=5)).findings)
    assert found[0] == "misdeal"


def test_the_same_bet_id_twice_is_a_duplicate() -> None:
    """A bet id placed twice in a round is a duplicate_event."""
    table = _hoyle()
    second = find(table.events, "bet.placed", 1)
    assert kinds(replay(edit(table.events, second, bet="r1b1")).findings)[0] == "duplicate_event"


def test_a_revealed_hole_card_that_was_not_dealt() -> None:
    """Seed 004 (004:43): the dealer turns over the card dealt face down; another card
    revealed is out of sequence."""
    table = _hoyle()
    index = find(table.events, "card.revealed")
    assert kinds(replay(edit(table.events, index, card="2S")).findings) == ["card_out_of_sequence"]


def test_an_event_for_another_round_is_unexpected() -> None:
    """A card for a round that is not in play is an unexpected_event."""
    table = _hoyle()
    index = find(table.events, "card.dealt", 2)
    found = kinds(replay(edit(table.events, index, round=7)).findings)
    assert found[0] == "unexpected_event"


def test_a_shuffle_whose_order_breaks_its_commitment() -> None:
    """A recorded order that does not hash to the recorded commitment is a shoe
    procedure finding."""
    table = _hoyle()
    index = find(table.events, "shoe.shuffled")
    assert kinds(replay(edit(table.events, index, commitment="0" * 64)).findings) == [
        "shoe_procedure"
    ]


def test_a_cash_out_taken_for_another_amount_than_offered() -> None:
    """Seed 000 (000:108-109): the player takes the offer shown; a cash-out recorded for
    another amount is a wrong payout."""
    table = Table(LIVE, layout(LIVE, ["TS 3H"], "7D TD", play="2C 5C"))
    table.deal(
        [Stake("a", 1, 100)], choices=Choices(offer=system_offers, accept=lambda bet, amount: True)
    )
    assert table.replay().findings == ()
    index = find(table.events, "cashout.accepted")
    found = kinds(replay(edit(table.events, index, amount=90)).findings)
    assert found == ["wrong_payout"]


def test_an_offer_other_than_the_systems_is_a_wrong_cashout_offer() -> None:
    """Seed 000 (000:108): the offer is "creata dal sistema su base statistica" - the
    hand's expected value from the cards left in the shoe, less it-live's margin. An offer
    of any other amount is a wrong_cashout_offer naming both amounts; taken, it still
    settles at the amount offered (what the player was shown)."""
    table = Table(LIVE, layout(LIVE, ["TS 3H"], "7D TD", play="2C 5C"))
    dealt = table.deal(
        [Stake("a", 1, 1000)],
        choices=Choices(offer=lambda bet, hand, up, system: 600, accept=lambda bet, amount: True),
    )
    assert dealt.round is not None
    result = table.replay()
    assert kinds(result.findings) == ["wrong_cashout_offer"]
    finding = result.findings[0]
    assert (finding.bet, finding.recorded, finding.box, finding.hand) == ("a", "600", 1, 0)
    assert finding.expected is not None and int(finding.expected) != 600
    assert result.rounds[0].expected["a"].net == -400
