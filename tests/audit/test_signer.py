"""The signer (``manage.py digest --follow``): a head soon after the record grows,
coalesced to one per interval, none while nothing but heads came; it outlives a failure.
Driven here by a scripted clock: each sleep moves it and does what the script says then."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from audit.integrity import digests
from audit.models import Event
from audit.store.streams import events_append, stream_version
from tests.commands import run_command
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db


class Script:
    """A clock that only moves when the signer sleeps, and what happens at given times."""

    def __init__(self, actions: dict[float, Callable[[], object]], end: float) -> None:
        self.now, self.actions, self.end = 0.0, dict(sorted(actions.items())), end
        self.signed_at: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now = round(self.now + seconds, 6)
        for at in [at for at in self.actions if at <= self.now]:
            self.actions.pop(at)()

    def stop(self) -> bool:
        return self.now >= self.end


def _append(round_no: int) -> None:
    version = stream_version("T1")
    events = ([table_opened("T1")] if version == 0 else []) + round_events(round_no)
    events_append(stream="T1", expected_version=version, events=events)


def _heads() -> list[Event]:
    return list(Event.objects.filter(stream=digests.DIGEST_STREAM).order_by("version"))


def test_a_head_follows_a_commit_and_a_burst_gets_one(db, settings) -> None:
    """Nothing signed over an empty record; a commit after a quiet spell is signed at the
    next poll; three commits within the interval after it get one head, an interval after
    the first; the heads' own events never call for another. Every head goes to the
    publisher (the second with the proof that it grew from the first)."""
    published = []

    def signed(sth) -> None:
        script.signed_at.append(script.now)
        published.append(
            json.loads((Path(settings.DIGEST_PUBLISHERS[0]) / "latest.json").read_text())
        )

    script = Script(
        {
            0.1: lambda: _append(1),
            0.2: lambda: _append(2),
            0.5: lambda: _append(3),
            0.7: lambda: _append(4),
        },
        end=3.0,
    )
    count = digests.sign_following(
        interval=1.0,
        poll=0.05,
        store_every=0,
        stop=script.stop,
        sleep=script.sleep,
        clock=script.clock,
        signed=signed,
    )
    assert count == 2
    assert script.signed_at == [0.1, 1.1]
    first, second = _heads()
    table = Event.objects.filter(stream="T1")
    assert first.payload["size"] == 26  # round 1 and the table's opening
    assert second.payload["size"] == table.count() + 1 == 27 + 75  # rounds 2-4, and the first head
    assert second.payload["previous_size"] == 26
    assert [head["size"] for head in published] == [26, 102] and published[1]["previous_size"] == 26


def test_one_head_in_so_many_seconds_is_stored_the_others_only_published(db, settings) -> None:
    """With heads kept every 2 s: the first head of the run is stored (and archived at the
    publisher), the next one a second later only replaces the publisher's latest, the one
    after 2 s is stored again - and proves it grew from the one only published."""
    folder = Path(settings.DIGEST_PUBLISHERS[0])
    script = Script(
        {0.1: lambda: _append(1), 0.6: lambda: _append(2), 1.5: lambda: _append(3)}, end=4.0
    )
    count = digests.sign_following(
        interval=1.0,
        poll=0.05,
        store_every=2.0,
        stop=script.stop,
        sleep=script.sleep,
        clock=script.clock,
        signed=lambda sth: script.signed_at.append(script.now),
    )
    assert count == 3 and script.signed_at == [0.1, 1.1, 2.1]
    first, third = _heads()
    assert (first.payload["size"], third.payload["size"]) == (26, 77)
    assert third.payload["previous_size"] == 52  # the head signed at 1.1, published only
    archived = sorted(path.name for path in folder.glob("heads/*/head-*.json"))
    assert archived == [f"head-{26:012d}.json", f"head-{77:012d}.json"]
    assert json.loads((folder / "latest.json").read_text())["size"] == 77


def test_the_signer_outlives_a_failure(db, settings, tmp_path, caplog) -> None:
    """No signing key (production refuses to make one): logged, tried again each interval;
    once the key is there, the head is signed."""
    settings.DEBUG = False
    key = settings.DIGEST_SIGNING_KEY
    settings.DIGEST_SIGNING_KEY = str(tmp_path / "not-yet.pem")

    def key_arrives() -> None:
        settings.DIGEST_SIGNING_KEY = key

    script = Script({0.1: lambda: _append(1), 2.5: key_arrives}, end=4.0)
    with caplog.at_level(logging.ERROR, logger="audit.integrity.digests"):
        count = digests.sign_following(
            interval=1.0,
            poll=0.05,
            store_every=0,
            stop=script.stop,
            sleep=script.sleep,
            clock=script.clock,
        )
    assert count == 1 and len(_heads()) == 1
    assert "the signer could not sign a head, and tries again: DIGEST_SIGNING_KEY" in caplog.text


def test_digest_if_needed_signs_only_when_the_record_grew(db) -> None:
    code, out, _ = run_command("digest", "--if-needed")
    assert code == 0 and "nothing to sign" in out and not _heads()
    _append(1)
    code, out, _ = run_command("digest", "--if-needed")
    assert code == 0 and "signed head: 26 events" in out
    code, out, _ = run_command("digest", "--if-needed")  # only the head's own event since
    assert code == 0 and "nothing to sign" in out and len(_heads()) == 1


def test_the_position_a_head_covers_is_its_last_leaf(db, monkeypatch) -> None:
    """Read from the saved block before it (blocks of 16 here), as counted by hand."""
    monkeypatch.setattr(digests, "BLOCK", 16)
    for n in (1, 2):
        _append(n)
    digests.digest_sign()
    positions = list(Event.objects.order_by("position").values_list("position", flat=True))
    assert [digests.leaf_position(i) for i in (0, 15, 16, 17, 50)] == [
        positions[i] for i in (0, 15, 16, 17, 50)
    ]
    assert digests.covered_position() == positions[50]  # the head covers leaves 0..50
