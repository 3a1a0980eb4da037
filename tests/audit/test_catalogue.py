"""The catalogue refuses every kind of malformed event, naming the field."""

from __future__ import annotations

import json
import typing
from dataclasses import replace

import pytest

from audit.models import Event
from audit.record.events import (
    LIFTED,
    REGISTRY,
    PayloadError,
    current_form,
    current_version,
    read_current,
    upcast,
    validate_payload,
)
from audit.record.events.fields import Card
from audit.record.events.registry import decode_payload_json
from audit.store.errors import InvalidEvent
from audit.store.streams import events_append
from tables.engine.cards import RANKS, SUITS, VALUE
from tests.event_examples import EXAMPLES, V1_EXAMPLES
from tests.samples import sample_event

DESIGN_TYPES = {
    "table.opened",
    "table.closed",
    "dealer.assigned",
    "inventory.counted",
    "chips.filled",
    "chips.credited",
    "buyin.recorded",
    "drop.counted",
    "shoe.shuffled",
    "shoe.cut",
    "card.burned",
    "round.started",
    "bet.placed",
    "betting.closed",
    "card.dealt",
    "decision.made",
    "cashout.offered",
    "cashout.accepted",
    "card.revealed",
    "round.settled",
    "round.voided",
    "correction.recorded",
}


def test_every_event_type_of_the_design_is_registered():
    assert DESIGN_TYPES <= set(REGISTRY)
    assert set(EXAMPLES) == set(REGISTRY)


@pytest.mark.parametrize("type_name", sorted(EXAMPLES))
def test_example_payload_validates_and_round_trips_through_json(type_name):
    """Each type's example is valid, and its normal form survives JSON unchanged."""
    version, normal = validate_payload(type_name, None, EXAMPLES[type_name])
    assert version == current_version(type_name)
    assert json.loads(json.dumps(normal)) == normal
    assert validate_payload(type_name, version, json.loads(json.dumps(normal)))[1] == normal


@pytest.mark.parametrize("type_name", sorted(EXAMPLES))
def test_every_missing_field_is_named(type_name):
    """Dropping any field without a default is refused, naming that field."""
    schema = REGISTRY[type_name].schemas[current_version(type_name)]
    fields = schema.__struct_fields__
    required = fields[: len(fields) - len(schema.__struct_defaults__)]  # defaults come last
    assert required
    for name in required:
        payload = {k: v for k, v in EXAMPLES[type_name].items() if k != name}
        with pytest.raises(PayloadError) as caught:
            validate_payload(type_name, None, payload)
        assert caught.value.field == f"payload.{name}"


@pytest.mark.parametrize("type_name", sorted(EXAMPLES))
def test_unknown_field_is_named(type_name):
    with pytest.raises(PayloadError) as caught:
        validate_payload(type_name, None, {**EXAMPLES[type_name], "tip": 5})
    assert caught.value.field == "payload.tip"
    assert "unknown field" in caught.value.message


@pytest.mark.parametrize(
    ("type_name", "field", "value", "path", "says"),
    [
        ("bet.placed", "amount", "2500", "payload.amount", "Expected `int`, got `str`"),
        ("bet.placed", "amount", 25.0, "payload.amount", "Expected `int`, got `float`"),
        ("bet.placed", "amount", True, "payload.amount", "Expected `int`, got `bool`"),
        ("bet.placed", "amount", -1, "payload.amount", ">= 0"),
        ("bet.placed", "amount", 2**53, "payload.amount", "<= 9007199254740991"),
        ("bet.placed", "kind", "side", "payload.kind", "Invalid enum value 'side'"),
        ("bet.placed", "box", 0, "payload.box", ">= 1"),
        ("card.dealt", "card", "10H", "payload.card", "Invalid enum value '10H'"),
        ("card.dealt", "card", "as", "payload.card", "Invalid enum value 'as'"),
        ("card.dealt", "card", "AS ", "payload.card", "Invalid enum value"),
        ("shoe.shuffled", "order", ["AS", "XX"], "payload.order[1]", "Invalid enum value 'XX'"),
        ("card.dealt", "face", "sideways", "payload.face", "Invalid enum value"),
        ("table.opened", "currency", "eur", "payload.currency", "matching regex"),
        ("table.opened", "gaming_day", "29/11/2026", "payload.gaming_day", "not a calendar date"),
        # a gaming day is a date of the calendar, in the API's years
        ("table.opened", "gaming_day", "2026-02-31", "payload.gaming_day", "not a calendar date"),
        ("table.opened", "gaming_day", "2027-02-29", "payload.gaming_day", "not a calendar date"),
        ("drop.counted", "gaming_day", "2026-02-31", "payload.gaming_day", "not a calendar date"),
        (
            "drop.counted",
            "gaming_day",
            "0001-01-01",
            "payload.gaming_day",
            "is outside 1900-01-01..9998-12-31",
        ),
        (
            "drop.posted",
            "gaming_day",
            "9999-12-31",
            "payload.gaming_day",
            "is outside 1900-01-01..9998-12-31",
        ),
        (
            "inventory.counted",
            "gaming_day",
            "2026-13-01",
            "payload.gaming_day",
            "not a calendar date",
        ),
        (
            "table.closed",
            "gaming_day",
            20261129,
            "payload.gaming_day",
            "Expected `date`, got `int`",
        ),
        # what a 64-bit column, a JSON reader or a shoe can hold
        (
            "chips.filled",
            "chips",
            [{"denomination": 2**40, "count": 2**20}],
            "payload.chips[0].count",
            "come to more than 9007199254740991 minor units",
        ),
        (
            "chips.filled",
            "chips",
            [{"denomination": 100, "count": 1}] * 65,
            "payload.chips",
            "length <= 64",
        ),
        ("table.opened", "rules", {"decks": 2**60}, "payload.rules", "<= 9007199254740991"),
        ("table.opened", "rules", {"soft17": "h" * 65}, "payload.rules", "length <= 64"),
        ("shoe.shuffled", "order", ["AS"] * 625, "payload.order", "length <= 624"),
        ("shoe.cut", "cut_card", 10**10, "payload.cut_card", "<= 624"),
        ("shoe.cut", "position", 625, "payload.position", "<= 624"),
        (
            "round.settled",
            "settlements",
            [{"bet": "x", "outcome": "win", "net": "1"}],
            "payload.settlements[0].net",
            "Expected `int`, got `str`",
        ),
        (
            "round.settled",
            "settlements",
            [{"bet": "x", "outcome": "win"}],
            "payload.settlements[0].net",
            "missing required field",
        ),
        (
            "inventory.counted",
            "chips",
            [{"denomination": 0, "count": 1}],
            "payload.chips[0].denomination",
            ">= 1",
        ),
        ("table.opened", "rules", {"Decks!": 6}, "payload.rules", "(in a key)"),
        ("table.opened", "rules", {"decks": 6.5}, "payload.rules", "got `float`"),
    ],
)
def test_wrong_types_and_values_are_refused_naming_the_field(type_name, field, value, path, says):
    with pytest.raises(PayloadError) as caught:
        validate_payload(type_name, None, {**EXAMPLES[type_name], field: value})
    assert caught.value.field.startswith(path), caught.value
    assert says in caught.value.message


def test_a_card_is_one_of_the_52_the_engine_deals():
    # the payload's card type lists them (a Literal, for its speed): the same 52 as every
    # rank in every suit, the engine's own deck
    listed = typing.get_args(typing.get_args(Card)[0])
    assert len(listed) == len(set(listed)) == 52
    assert set(listed) == {rank + suit for rank in RANKS for suit in SUITS} == set(VALUE)


def test_unknown_type_and_schema_version_are_refused():
    with pytest.raises(PayloadError) as caught:
        validate_payload("card.teleported", None, {})
    assert caught.value.field == "type"
    with pytest.raises(PayloadError) as caught:
        validate_payload("bet.placed", 9, EXAMPLES["bet.placed"])
    assert caught.value.field == "schema_version" and "known: 1, 2" in caught.value.message
    with pytest.raises(PayloadError) as caught:
        validate_payload("bet.placed", None, ["not", "an", "object"])
    assert caught.value.field == "payload"


@pytest.mark.parametrize("version", [True, 1.0, "1", 9, None])
def test_a_json_payloads_version_is_checked_as_strictly_after_its_reader_is_remembered(version):
    # the JSON path remembers each (type, version) it has read; True hashes as 1, and a
    # float or text version must not find version 1's reader either
    raw = json.dumps(EXAMPLES["card.dealt"]).encode()
    assert decode_payload_json("card.dealt", 1, raw)[:2] == (1, EXAMPLES["card.dealt"])
    if version is None:  # the current version, by its own look-up
        assert decode_payload_json("card.dealt", None, raw)[0] == current_version("card.dealt")
        return
    with pytest.raises(PayloadError) as caught:
        decode_payload_json("card.dealt", version, raw)
    assert caught.value.field == "schema_version"
    with pytest.raises(PayloadError) as caught:
        decode_payload_json("card.teleported", 1, raw)
    assert caught.value.field == "type"


def test_older_version_is_validated_by_its_own_schema_and_upcast_on_read():
    v1 = {k: v for k, v in EXAMPLES["bet.placed"].items() if k != "parent"}
    assert validate_payload("bet.placed", 1, v1) == (1, v1)
    with pytest.raises(PayloadError):
        validate_payload("bet.placed", 2, v1)  # v2 requires parent
    assert upcast("bet.placed", 1, v1) == (2, {**v1, "parent": None})


V1_READ_AS_V2 = {
    "inventory.counted": {"gaming_day": None, "shift": None, "slip": None},
    "chips.filled": {"dealer": None, "supervisor": None},
    "chips.credited": {"dealer": None, "supervisor": None},
    "drop.counted": {"shift": None, "chips": None, "team": None},
}


@pytest.mark.parametrize("type_name", sorted(V1_READ_AS_V2))
def test_a_v1_custody_payload_stays_valid_and_reads_as_v2_with_the_new_members_none(type_name):
    """The chip and cash types that custody gave a v2 still take their v1 payloads; read,
    they are the v2 payload with every new member None, and valid as v2."""
    v1 = V1_EXAMPLES[type_name]
    assert validate_payload(type_name, 1, v1) == (1, v1)
    version, lifted = upcast(type_name, 1, dict(v1))
    assert (version, lifted) == (2, {**v1, **V1_READ_AS_V2[type_name]})
    assert set(lifted) == set(REGISTRY[type_name].schemas[2].__struct_fields__)
    validate_payload(type_name, 2, lifted)


@pytest.mark.parametrize("type_name", sorted(V1_READ_AS_V2))
def test_a_v1_shaped_payload_stamped_v2_is_stored_and_hashed_as_sent(type_name):
    """A sender of before the custody work that stamps the current version on a v1-shaped
    payload is accepted, and its normal form (what is hashed) is what it sent: a null
    member that v2 added is left out, so its hash does not change on the way in."""
    v1 = V1_EXAMPLES[type_name]
    assert validate_payload(type_name, 2, v1) == (2, v1)
    assert validate_payload(type_name, 2, {**v1, **V1_READ_AS_V2[type_name]}) == (2, v1)


def test_a_v1_sign_off_reads_as_v2_with_no_state_no_exceptions_and_no_adjustments():
    """A sign-off of before the day's states: read, it is the v2 payload with the state
    None and empty lists of exceptions and adjustments; v2 requires them."""
    v1 = V1_EXAMPLES["ledger.signed_off"]
    assert validate_payload("ledger.signed_off", 1, v1) == (1, v1)
    lifted = {**v1, "state": None, "exceptions": [], "adjustments": []}
    assert upcast("ledger.signed_off", 1, dict(v1)) == (2, lifted)
    assert validate_payload("ledger.signed_off", 2, lifted) == (2, lifted)
    with pytest.raises(PayloadError) as caught:
        validate_payload("ledger.signed_off", 2, v1)
    assert caught.value.field == "payload.state"
    with pytest.raises(PayloadError) as caught:
        validate_payload("ledger.signed_off", 2, {**lifted, "exceptions": ["looked_fine"]})
    assert caught.value.field == "payload.exceptions[0]"


@pytest.mark.parametrize("type_name", sorted(V1_READ_AS_V2))
def test_a_current_payload_that_leaves_out_its_none_members_reads_with_each_of_them(type_name):
    """What a fold reads (current_form): a v2 payload stored without its ``None``
    members (omit_defaults) has every member of the v2 schema, the left-out ones None,
    and its stored members as they were; a v1 payload reads the same, lifted by the
    upcaster. The stored payload is not changed."""
    v1 = V1_EXAMPLES[type_name]
    members = set(REGISTRY[type_name].schemas[2].__struct_fields__)
    for version in (1, 2):
        stored = dict(v1)
        read_version, read = current_form(type_name, version, stored)
        assert (read_version, read) == (2, {**v1, **V1_READ_AS_V2[type_name]})
        assert set(read) == members and stored == v1
    whole = {**EXAMPLES[type_name]}
    assert current_form(type_name, 2, whole) == (2, {**V1_READ_AS_V2[type_name], **whole})


def test_the_types_a_reader_lifts_are_those_with_an_older_version_or_a_member_left_out():
    """LIFTED, worked out by hand from the catalogue: every type with a v1 example (an
    older version) and the custody types whose v2 leaves a None member out; any other
    type's event is handed on as read, the same dict."""
    assert LIFTED == set(V1_EXAMPLES) | set(V1_READ_AS_V2)
    event = {"type": "card.dealt", "schema_version": 1, "payload": EXAMPLES["card.dealt"]}
    assert read_current(event) is event and event["payload"] is EXAMPLES["card.dealt"]
    old = {
        "type": "bet.placed",
        "schema_version": 1,
        "payload": {k: v for k, v in EXAMPLES["bet.placed"].items() if k != "parent"},
    }
    assert read_current(old) == {
        "type": "bet.placed",
        "schema_version": 2,
        "payload": {**old["payload"], "parent": None},
    }


def test_every_type_with_an_older_version_has_a_v1_example():
    """Each type whose schema moved on has a v1 example, so its upcaster is tested."""
    assert set(V1_EXAMPLES) == {name for name, t in REGISTRY.items() if t.version > 1}


@pytest.mark.parametrize(
    ("type_name", "field", "value", "path", "says"),
    [
        ("drop.counted", "team", [], "payload.team", "length >= 1"),
        ("drop.counted", "chips", -1, "payload.chips", ">= 0"),
        ("inventory.counted", "shift", "06 00", "payload.shift", "matching regex"),
        ("marker.redeemed", "method", "iou", "payload.method", "Invalid enum value"),
        ("fill.voided", "reason", "", "payload.reason", "length >= 1"),
        ("marker.issued", "amount", 10.5, "payload.amount", "got `float`"),
    ],
)
def test_custody_fields_are_bounded(type_name, field, value, path, says):
    with pytest.raises(PayloadError) as caught:
        validate_payload(type_name, None, {**EXAMPLES[type_name], field: value})
    assert caught.value.field.startswith(path), caught.value
    assert says in caught.value.message


@pytest.mark.django_db
@pytest.mark.parametrize(
    "bad",
    [
        {"type": "card.teleported"},
        {"payload": {**EXAMPLES["bet.placed"], "tip": 1}},
        {"payload": {k: v for k, v in EXAMPLES["bet.placed"].items() if k != "amount"}},
        {"payload": {**EXAMPLES["bet.placed"], "amount": "25"}},
        {"schema_version": 7},
    ],
)
def test_invalid_event_in_a_batch_stores_nothing(bad):
    good = sample_event("bet.placed", EXAMPLES["bet.placed"])
    batch = [sample_event("round.started", EXAMPLES["round.started"]), replace(good, **bad)]
    with pytest.raises(InvalidEvent) as caught:
        events_append(stream="T1", expected_version=0, events=batch)
    assert caught.value.index == 1
    assert Event.objects.count() == 0


def test_docs_list_every_event_type():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    for name, event_type in REGISTRY.items():
        assert f"### `{name}` (schema version {event_type.version})" in text
