"""The Merkle leaf commits to each event's seal (leaf format 2). A head signed before
(format 1, no seal in its leaves) stays in the record and is still checked in its own
format; the next head starts a tree of the new format; a seal stripped or replaced under a
head of the new format changes its root."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command

from audit.integrity import digests
from audit.models import Event, MerkleBlock, MerkleState, SubscriberPosition
from audit.record import merkle, signing
from audit.store.streams import NewEvent, events_append, stream_version
from tests.samples import round_events, table_opened

from .tampering import rehash, tamper

pytestmark = pytest.mark.django_db


def verify(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify", *args, stdout=out, stderr=err)
    except CommandError as error:
        return error.returncode, err.getvalue() + str(error)
    return 0, out.getvalue()


def _format_one_head() -> signing.SignedTreeHead:
    """A head as the back-office signed it before seals entered the leaf: leaves of format
    1 computed here from the rows, signed with leaf_format 1, stored as a v1 digest.signed."""
    rows = Event.objects.order_by("position").values_list("position", "stream", "version", "hash")
    leaves = [
        merkle.event_leaf(stream=s, version=v, position=p, event_hash=h, seal=None, leaf_format=1)
        for p, s, v, h in rows
    ]
    heads = {}
    for _, stream, version, digest in rows:
        heads[stream] = (version, digest)
    now = datetime.now(UTC)
    sth = signing.sign_head(
        merkle.TreeHead(len(leaves), merkle.root_of(leaves)),
        timestamp=now,
        private_key=digests.signing_key(),
        streams=heads,
        leaf_format=1,
    )
    payload = {**sth.as_dict(), "previous_size": None, "previous_root": None, "consistency": []}
    assert "leaf_format" not in payload
    events_append(
        principal="server:digest",
        stream=digests.DIGEST_STREAM,
        expected_version=stream_version(digests.DIGEST_STREAM),
        now=now,
        events=[
            NewEvent(
                id=uuid.uuid4(),
                type="digest.signed",
                payload=payload,
                schema_version=1,
                occurred_at=now,
                actor="server:digest",
                source="back-office",
            )
        ],
    )
    return sth


@pytest.fixture
def upgraded(monkeypatch) -> signing.SignedTreeHead:
    """Two tables and a format 1 head over them, stored as it was; the tree kept for
    signing dropped, as migration 0021 drops it."""
    monkeypatch.setattr(digests, "BLOCK", 16)
    for table in ("T1", "T2"):
        events_append(
            stream=table, expected_version=0, events=[table_opened(table), *round_events(1)]
        )
    sth = _format_one_head()
    MerkleBlock.objects.all().delete()
    MerkleState.objects.all().delete()
    SubscriberPosition.objects.filter(name=digests.SUBSCRIBER_NAME).update(position=0)
    return sth


def test_a_head_of_the_first_format_still_verifies_and_reads_as_it(upgraded) -> None:
    stored = digests.latest_signed()
    assert stored == upgraded and stored.leaf_format == 1
    assert Event.objects.get(stream=digests.DIGEST_STREAM).schema_version == 1
    code, text = verify()
    assert code == 0, text


def test_a_head_of_the_first_format_still_finds_a_rehashed_event(upgraded) -> None:
    settled = Event.objects.filter(stream="T1", type="round.settled").get()
    payload = {
        **settled.payload,
        "settlements": [
            {**settled.payload["settlements"][0], "net": 99_900},
            *settled.payload["settlements"][1:],
        ],
    }
    tamper(
        f"UPDATE audit_event SET payload = '{json.dumps(payload)}' WHERE position = {settled.position}"
    )
    rehash("T1", settled.version)
    code, text = verify()
    assert code == 1
    assert (
        f"{upgraded.size:,} events): the first {upgraded.size:,} events no longer have its Merkle root"
        in text
    )
    assert "no saved blocks of its leaf format to say where" in text


def test_the_next_head_starts_a_tree_of_the_new_format(upgraded, tmp_path) -> None:
    """The tree is folded again with the seals; the head names no previous one (no proof
    joins two formats) and both heads verify, the old one given as a file too."""
    sth, stored = digests.digest_sign()
    assert sth.leaf_format == merkle.LEAF_FORMAT == 2 and stored.schema_version == 2
    assert stored.payload["leaf_format"] == 2
    assert (
        stored.payload["previous_size"],
        stored.payload["previous_root"],
        stored.payload["consistency"],
    ) == (None, None, [])
    rows = Event.objects.filter(position__lt=stored.position).order_by("position")
    leaves = [
        merkle.event_leaf(
            stream=e.stream, version=e.version, position=e.position, event_hash=e.hash, seal=e.seal
        )
        for e in rows
    ]
    assert sth.size == len(leaves) and sth.root == merkle.root_of(leaves)
    old = tmp_path / "old-head.json"
    old.write_text(json.dumps(upgraded.as_dict()))
    code, text = verify("--head", str(old))
    assert code == 0, text
    # a later head of the same format carries its consistency proof again
    events_append(stream="T1", expected_version=26, events=round_events(2))
    later, stored = digests.digest_sign()
    assert stored.payload["previous_size"] == sth.size
    proof = [bytes.fromhex(n) for n in stored.payload["consistency"]]
    assert merkle.verify_consistency(sth.size, later.size, sth.root, later.root, proof)


def test_an_inclusion_proof_is_not_made_against_a_head_of_the_old_format(upgraded) -> None:
    event = Event.objects.get(stream="T1", version=3)
    with pytest.raises(
        digests.DigestError, match="has leaves of format 1, the tree now format 2: sign a new head"
    ):
        digests.inclusion_proof_of([event], upgraded)


@pytest.mark.parametrize("seal", ["NULL", "'" + "0" * 64 + "'"])
def test_a_seal_stripped_or_replaced_under_a_head_changes_its_root(upgraded, seal: str) -> None:
    """The seal of a row the head covers set to NULL, or to another value, by an owner:
    the row is unsealed, and the head's root no longer holds - the leaf committed to it."""
    digests.digest_sign()
    row = Event.objects.get(stream="T2", version=5)
    tamper(f"UPDATE audit_event SET seal = {seal} WHERE position = {row.position}")
    code, text = verify()
    assert code == 1
    assert "T2: first bad event is version 5" in text and "unsealed" in text
    assert (
        "no longer have its Merkle root (an event changed, inserted, removed, re-hashed or moved, or a seal "
        "stripped or replaced)" in text
    )
