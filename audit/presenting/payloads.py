"""An event's payload as people read it: named fields (label: value), in the active
language, never raw JSON.

Which fields are money is the catalogue's own word, not a list kept here: a field of the
types ``Money``, ``SignedMoney`` or ``Denomination`` (:mod:`audit.record.events.fields`)
is described as holding "minor units", and is written through the one money formatter in
the payload's currency (its own ``currency`` field, or the table's) - a signed amount
(a settlement's net) with its sign. Flags are words, a missing value n/a, a card its rank
and suit (``TD`` -> 10♦), a list or a nested record one line of its own named parts.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import msgspec.inspect as mi
from django.utils.translation import gettext, pgettext_lazy

from audit.record.events import REGISTRY, current_form
from audit.record.money import format_money, format_signed, money_text, not_available

# the fields a round's record and a table's day carry, by name
LABELS = {
    "action": pgettext_lazy("payload field", "decision"),
    "amount": pgettext_lazy("payload field", "amount"),
    "authorised_by": pgettext_lazy("payload field", "authorised by"),
    "bet": pgettext_lazy("payload field", "bet"),
    "box": pgettext_lazy("payload field", "box"),
    "by": pgettext_lazy("payload field", "by"),
    "card": pgettext_lazy("payload field", "card"),
    "cash": pgettext_lazy("payload field", "cash"),
    "chips": pgettext_lazy("payload field", "chips"),
    "corrects": pgettext_lazy("payload field", "corrects event"),
    "count": pgettext_lazy("payload field", "count"),
    "counted_by": pgettext_lazy("payload field", "counted by"),
    "currency": pgettext_lazy("payload field", "currency"),
    "cut_card": pgettext_lazy("payload field", "cut card at"),
    "dealer": pgettext_lazy("payload field", "dealer"),
    "decks": pgettext_lazy("payload field", "decks"),
    "denomination": pgettext_lazy("payload field", "denomination"),
    "face": pgettext_lazy("payload field", "face"),
    "gaming_day": pgettext_lazy("payload field", "gaming day"),
    "hand": pgettext_lazy("payload field", "hand"),
    "kind": pgettext_lazy("payload field", "kind"),
    "max_bet": pgettext_lazy("payload field", "maximum bet"),
    "method": pgettext_lazy("payload field", "method"),
    "min_bet": pgettext_lazy("payload field", "minimum bet"),
    "net": pgettext_lazy("payload field", "net to the player"),
    "note": pgettext_lazy("payload field", "note"),
    "outcome": pgettext_lazy("payload field", "outcome"),
    "parent": pgettext_lazy("payload field", "belongs to bet"),
    "player": pgettext_lazy("payload field", "player"),
    "position": pgettext_lazy("payload field", "cut at"),
    "reason": pgettext_lazy("payload field", "reason"),
    "round": pgettext_lazy("payload field", "round"),
    "rules": pgettext_lazy("payload field", "rule changes"),
    "ruleset": pgettext_lazy("payload field", "rule set"),
    "settlements": pgettext_lazy("payload field", "settlements"),
    "shoe": pgettext_lazy("payload field", "shoe"),
    "slip": pgettext_lazy("payload field", "slip"),
    "table": pgettext_lazy("payload field", "table"),
    "to": pgettext_lazy("payload field", "to"),
    "witnessed_by": pgettext_lazy("payload field", "witnessed by"),
}
# the game's words a payload holds (bet kinds, decisions, outcomes, faces, burns)
WORDS = {
    "dealer": pgettext_lazy("dealt to", "the dealer"),
    "main": pgettext_lazy("bet kind", "main"),
    "insurance": pgettext_lazy("bet kind", "insurance"),
    "double": pgettext_lazy("bet kind", "double"),
    "split": pgettext_lazy("bet kind", "split"),
    "behind": pgettext_lazy("bet kind", "bet behind"),
    "hit": pgettext_lazy("decision", "hit"),
    "stand": pgettext_lazy("decision", "stand"),
    "surrender": pgettext_lazy("decision", "surrender"),
    "no_insurance": pgettext_lazy("decision", "no insurance"),
    "even_money": pgettext_lazy("decision", "even money"),
    "win": pgettext_lazy("outcome", "win"),
    "natural": pgettext_lazy("outcome", "blackjack"),
    "lose": pgettext_lazy("outcome", "lose"),
    "push": pgettext_lazy("outcome", "push"),
    "carried": pgettext_lazy("outcome", "carried to the next round"),
    "cashed_out": pgettext_lazy("outcome", "cashed out"),
    "up": pgettext_lazy("card face", "face up"),
    "down": pgettext_lazy("card face", "face down"),
    "after_shuffle": pgettext_lazy("burn reason", "after the shuffle"),
    "exposed": pgettext_lazy("burn reason", "exposed"),
    "dealer_error": pgettext_lazy("burn reason", "dealer's error"),
    "discard_left": pgettext_lazy("burn reason", "left over to the discard"),
    "misdeal": pgettext_lazy("burn reason", "misdeal"),
    "other": pgettext_lazy("burn reason", "other"),
}
_SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_RANKS = {"T": "10"}


def label_of(name: str) -> str:
    """A payload field's name for people (``authorised_by`` -> "authorised by")."""
    label = LABELS.get(name)
    return str(label) if label is not None else name.replace("_", " ")


def _card(code: str) -> str:
    return _RANKS.get(code[0], code[0]) + _SUITS[code[1]]


def _money_kind(info: Any) -> str | None:
    """``"money"`` or ``"signed"`` where the catalogue describes the type as minor units."""
    if not isinstance(info, mi.Metadata):
        return None
    described = str((info.extra_json_schema or {}).get("description", ""))
    if "minor units" not in described:
        return None
    minimum = getattr(info.type, "ge", None)
    return "signed" if minimum is not None and minimum < 0 else "money"


def _text(info: Any, value: Any, currency: str | None) -> str:
    if value is None:
        return not_available()
    if isinstance(info, mi.UnionType):  # X | None: the one that is not None
        info = next((t for t in info.types if not isinstance(t, mi.NoneType)), info)
    kind = _money_kind(info)
    if kind is not None and isinstance(value, int) and not isinstance(value, bool):
        if currency is None:
            return money_text(value, None, signed=kind == "signed")
        return format_signed(value, currency) if kind == "signed" else format_money(value, currency)
    if isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(info, mi.StructType) and isinstance(value, dict):
        return ", ".join(
            f"{label_of(f.name)}: {_text(f.type, value.get(f.name), currency)}"
            for f in info.fields
            if f.name in value
        )
    if isinstance(value, list):
        item = getattr(info, "item_type", None)
        if isinstance(item, mi.StructType):
            return "; ".join(_text(item, v, currency) for v in value) or "-"
        return " ".join(_text(item, v, currency) for v in value) or "-"
    if isinstance(value, dict):
        inner = getattr(info, "value_type", None)
        return "; ".join(f"{k}: {_text(inner, v, currency)}" for k, v in value.items()) or "-"
    if isinstance(info, mi.LiteralType) and isinstance(value, str):
        if len(value) == 2 and value[1] in _SUITS and value[0] in "23456789TJQKA":
            return _card(value)
        word = WORDS.get(value)
        return str(word) if word is not None else value.replace("_", " ")
    return str(value)


def payload_fields(
    event_type: str,
    schema_version: int,
    payload: dict[str, Any],
    currency: str | None,
    *,
    omit: Collection[str] = (),
) -> list[tuple[str, str]]:
    """``[(label, value), ...]``: each field of the payload in its schema's order, lifted to
    the type's current form, but those named in ``omit`` (what the page says already:
    the round of a round's recall); amounts as money in the payload's ``currency`` or else
    ``currency`` (the table's). A type the catalogue does not know: its fields as stored."""
    known = REGISTRY.get(event_type)
    if known is None:
        return [(label_of(k), str(v)) for k, v in payload.items()]
    version, lifted = current_form(event_type, schema_version, payload)
    own = lifted.get("currency")
    currency = own if isinstance(own, str) and own else currency
    info = mi.type_info(known.schemas[version])
    assert isinstance(info, mi.StructType)
    if event_type == "card.dealt" and lifted.get("box") is None:
        # a card to the dealer: no box and no hand, the dealer's
        lifted = {k: v for k, v in lifted.items() if k not in ("box", "hand")}
        dealer = [(str(LABELS["to"]), str(WORDS["dealer"]))]
    else:
        dealer = []
    return dealer + [
        (label_of(f.name), _text(f.type, lifted.get(f.name), currency))
        for f in info.fields
        if f.name in lifted and f.name not in omit
    ]
