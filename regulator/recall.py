"""Game recall (AGCO 13.1): one round's printable report, as HTML (a print stylesheet)
and PDF, from the admin and the API (:mod:`regulator.recall_views`).

Its content is the offline auditor's recall (``blackjack-audit round``, :mod:`auditor.recall`)
- the round's events in order (cards, bets, decisions, settlements), each bet's settlement
recorded and recomputed, the chain state, the inclusion proof against the signed head -
built from the round review page's data (:func:`tables.selectors.round_review`, shaped by
:func:`tables.admin.review_context`: the hands and their cards, the house result, the
findings), never a third reading of the events. Here the proof is the round's own last
event's, checked against the latest signed head before it is printed.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.timezone import get_current_timezone_name, localtime
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from audit.integrity import digests
from audit.models import Event
from audit.presenting.payloads import WORDS, payload_fields
from audit.presenting.vocabulary import (
    event_title,
    kind_sentence,
    kind_title,
    severity_text,
    status_text,
)
from audit.record import merkle
from audit.record.chain import format_timestamp, parse_timestamp
from audit.record.money import not_available
from tables import selectors
from tables.admin import money_text, natural_key, review_context, settlement_text

# a round's status, as the recall's first line says it
STATUSES = {
    "settled": pgettext_lazy("round status", "settled"),
    "voided": pgettext_lazy("round status", "voided"),
    "open": pgettext_lazy("round status", "never settled"),
}


def recall_context(table: str, day: date, number: int) -> dict[str, Any] | None:
    """What the recall shows; None when the table has no such round."""
    round_ = selectors.round_get(table=table, day=day, number=number)
    if round_ is None:
        return None
    review = selectors.round_review(round_)
    shown = review_context(review)
    currency = shown["currency"]
    events = [
        {
            "version": r.event.version,
            "at": format_timestamp(r.event.occurred_at),
            "type": r.event.type,
            "title": event_title(r.event.type),
            "fields": payload_fields(
                r.event.type,
                r.event.schema_version,
                r.event.payload,
                currency,
                omit=("round",) if r.event.payload.get("round") == number else (),
            ),
            # the casino's clock, to the second (a round's events come seconds apart)
            "time": localtime(r.event.occurred_at).strftime("%H:%M:%S"),
            "payload": json.dumps(r.event.payload, sort_keys=True, ensure_ascii=False),
            "hash": r.event.hash,
            "chain_ok": r.chain_ok,
            "chain": r.chain,
        }
        for r in review.events
    ]
    bets = [
        {
            "bet": b.bet,
            "box": b.box,
            "hand": b.hand,
            "kind": WORDS.get(b.kind, b.kind),
            "amount": money_text(b.amount, currency),
            "recorded": settlement_text(
                str(WORDS.get(b.recorded_outcome, b.recorded_outcome)), b.recorded_net, currency
            ),
            "recomputed": settlement_text(
                str(WORDS.get(b.expected_outcome, b.expected_outcome)), b.expected_net, currency
            ),
            "matches": b.matches,
        }
        for b in sorted(review.bets, key=lambda b: natural_key(b.bet))
    ]
    hands = [
        {
            "title": _("box %(box)s, hand %(hand)s")
            % {"box": h["hand"].box, "hand": h["hand"].number},
            "cards": h["cards"],
            "staked": h["staked"],
            "total": h["hand"].total,
            "soft": h["hand"].soft,
            "bust": h["hand"].bust,
            "actions": ", ".join(str(WORDS.get(str(a), a)) for a in h["hand"].actions),
        }
        for h in shown["hands"]
    ]
    findings = [
        {
            "title": kind_title(f["finding"].kind),
            "sentence": kind_sentence(f["finding"].kind),
            "severity": severity_text(f["finding"].severity),
            "status": status_text(f["finding"].status),
            "message": f["finding"].message,
        }
        for f in shown["findings"]
    ]
    return {
        "round": round_,
        "table": table,
        "day": day.isoformat(),
        "day_date": day,
        "time_zone": get_current_timezone_name(),
        "number": number,
        "currency": currency,
        "ruleset": round_.table.ruleset,
        "status": round_.status,
        "status_text": STATUSES.get(round_.status, round_.status),
        "shoe": review.shoe,
        "figures": shown["figures"],
        "dealer": shown["dealer"],
        "hands": hands,
        "events": events,
        "bets": bets,
        "mismatched": shown["mismatched"],
        "findings": findings,
        "chain_ok": review.chain_ok,
        "first": events[0] if events else None,
        "last": events[-1] if events else None,
        "anchor": _anchor(table, events[-1]["version"]) if events else None,
    }


def _anchor(table: str, version: int) -> dict[str, Any]:
    """The round's last event's inclusion proof in the latest signed head, checked."""
    event = Event.objects.get(stream=table, version=version)
    sth = digests.latest_signed()
    if (
        sth is None
        or digests.leaf_index(event) >= sth.size
        or sth.leaf_format != merkle.LEAF_FORMAT
    ):
        # (a head of an older leaf format is not the tree's any more: the next one covers the round)
        return {
            "covered": False,
            "size": sth.size if sth else 0,
            "why": _(
                "no signed head covers the round yet: the next periodic signing will "
                "(manage.py digest)"
            ),
        }
    proof = digests.inclusion_proof_of([event], sth)["proofs"][0]
    leaf = bytes.fromhex(proof["leaf"])
    ok = merkle.verify_inclusion(
        proof["index"], sth.size, leaf, [bytes.fromhex(n) for n in proof["path"]], sth.root
    )
    return {
        "covered": True,
        "ok": ok,
        "version": version,
        "index": proof["index"],
        "leaf": proof["leaf"],
        # the count as people read it, for the page and the PDF (a template cannot group digits)
        "path": proof["path"],
        "size": sth.size,
        "size_text": f"{sth.size:,}",
        "root": sth.root.hex(),
        "key": sth.key_id,
        "signed_at": sth.as_dict().get("timestamp"),
        # the same moment for people: the casino's clock, to the second
        "signed_text": _signed_text(sth.as_dict().get("timestamp")),
    }


def _signed_text(stamp: object) -> str:
    """A signed head's timestamp (``2026-11-29T22:00:00.000000Z``) as the reader's date and
    the casino's time to the second; as it is where it is not one."""
    if not isinstance(stamp, str):
        return not_available()
    try:
        moment = localtime(parse_timestamp(stamp))
    except ValueError:
        return stamp
    # one line: a date never breaks across two
    return format_html(
        '<span class="nowrap">{} {}</span>',
        date_format(moment, "DATE_FORMAT"),
        f"{moment:%H:%M:%S}",
    )
