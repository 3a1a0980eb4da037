"""Field types shared by the payload schemas.

Cards are two characters, rank then suit: ranks ``2``-``9``, ``T`` (ten), ``J``, ``Q``,
``K``, ``A``; suits ``S`` spades, ``H`` hearts, ``D`` diamonds, ``C`` clubs. So ``AS`` is
the ace of spades, ``TD`` the ten of diamonds, ``9H`` the nine of hearts.

Money is always a whole number of the currency's minor unit (cents for EUR, haléře for
CZK), never a float; the currency is the ISO 4217 code stated by the table's
``table.opened`` event, or by the event itself where it carries a ``currency`` field.
JSON integers beyond 2**53 - 1 are refused so every reader (JavaScript included) sees
the same number.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, ClassVar, Literal

import msgspec

MAX_SAFE_INT = 2**53 - 1

# a card is one of 52 texts, so a Literal: msgspec checks one by a look-up in C, where a
# pattern calls Python's re for every card (one a card.dealt, 312 in a six-deck shoe's
# order); the texts it gives are its own, one object a card. Rank by rank, each in the
# four suits (a test holds the 52 to that)
Card = Annotated[
    Literal[
        "2S",
        "2H",
        "2D",
        "2C",
        "3S",
        "3H",
        "3D",
        "3C",
        "4S",
        "4H",
        "4D",
        "4C",
        "5S",
        "5H",
        "5D",
        "5C",
        "6S",
        "6H",
        "6D",
        "6C",
        "7S",
        "7H",
        "7D",
        "7C",
        "8S",
        "8H",
        "8D",
        "8C",
        "9S",
        "9H",
        "9D",
        "9C",
        "TS",
        "TH",
        "TD",
        "TC",
        "JS",
        "JH",
        "JD",
        "JC",
        "QS",
        "QH",
        "QD",
        "QC",
        "KS",
        "KH",
        "KD",
        "KC",
        "AS",
        "AH",
        "AD",
        "AC",
    ],
    msgspec.Meta(description="rank+suit, e.g. AS, TD, 9H"),
]
Money = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INT, description="minor units")]
SignedMoney = Annotated[
    int,
    msgspec.Meta(
        ge=-MAX_SAFE_INT,
        le=MAX_SAFE_INT,
        description="minor units, + paid to the player, - taken by the house",
    ),
]
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INT)]
Denomination = Annotated[
    int, msgspec.Meta(ge=1, le=MAX_SAFE_INT, description="chip value in minor units")
]
RoundNo = Annotated[int, msgspec.Meta(ge=1, le=MAX_SAFE_INT)]
Box = Annotated[
    int,
    msgspec.Meta(
        ge=1, le=99, description="betting box (seat) on the layout, 1 = first to the dealer's left"
    ),
]
HandNo = Annotated[
    int,
    msgspec.Meta(ge=0, le=31, description="0 = the original hand, 1.. = hands made by splitting"),
]
Ident = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:@/-]*\Z")
]
# Free text (a note, a reason): any Unicode but control characters (tab and newlines
# aside) and the format characters that change how text reads - bidi overrides and
# isolates, zero-width spaces and joiners, the byte-order mark. Written once, as escapes
# (the API's schema quotes the same pattern for its note fields: audit.api.views.FreeTextField).
TEXT_REFUSED = (
    r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
)
TEXT_PATTERN = rf"^[^{TEXT_REFUSED}]*\Z"
TEXT_MAX = 2000
Text = Annotated[str, msgspec.Meta(min_length=1, max_length=TEXT_MAX, pattern=TEXT_PATTERN)]
Currency = Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{3}\Z", description="ISO 4217")]
# A gaming day is a calendar date, YYYY-MM-DD (msgspec reads it as a date: 2026-02-31 is
# refused), from 1900 to 9998 as the API's timestamps (the classes that hold one check the
# years: DayChecked). The normal form, what is stored and hashed, is the same text.
GamingDay = Annotated[
    date, msgspec.Meta(description="YYYY-MM-DD, a calendar date from 1900-01-01 to 9998-12-31")
]
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(9998, 12, 31)
# the most cards a shoe holds (12 decks: ShoeShuffled.decks): a cut or a cut card beyond the
# shoe is the engine's finding, one beyond any shoe is no cut at all
SHOE_MAX = 12 * 52
Sha256Hex = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}\Z")]
ParamName = Annotated[str, msgspec.Meta(pattern=r"^[a-z][a-z0-9_]{0,63}\Z")]
Face = Literal["up", "down"]

# The game's words, declared once: the catalogue's payloads, the rules engine and the
# simulator all use these names.
BetKind = Literal["main", "insurance", "double", "split", "behind"]
# what a hand does when it is its turn
HandAction = Literal["hit", "stand", "double", "split", "surrender"]
# what one bet decides for itself while the dealer's ace is up
BetDecision = Literal["insurance", "no_insurance", "even_money"]
# every action ``decision.made`` records
Action = Literal[HandAction, BetDecision]
Outcome = Literal[
    "win", "natural", "lose", "push", "surrender", "carried", "cashed_out", "even_money"
]


class Payload(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Base of every payload: undeclared fields are a sender bug and are refused."""


class DayChecked:
    """A payload whose gaming days (the fields ``DAYS`` names) must lie from 1900-01-01 to
    9998-12-31: checked once decoded, refused as a ValidationError naming the field (the
    registry's ``explain`` reads the name in front of the message)."""

    __slots__ = ()
    DAYS: ClassVar[tuple[str, ...]] = ("gaming_day",)

    def __post_init__(self) -> None:
        for name in self.DAYS:
            value = getattr(self, name)
            if value is not None and not FIRST_DAY <= value <= LAST_DAY:
                raise ValueError(
                    f"{name}: {value.isoformat()} is outside {FIRST_DAY.isoformat()}..{LAST_DAY.isoformat()}"
                )
