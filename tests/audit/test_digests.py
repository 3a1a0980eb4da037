"""Signed tree heads of the record: each attack that the chain alone cannot see - run as a
superuser who knows the project's own hash function - is found by verify against a signed
head, naming where; proofs check out with an independent reading of RFC 9162."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from audit.integrity import digests
from audit.models import Event, MerkleBlock
from audit.record import merkle
from audit.store.streams import events_append
from tests.audit.tampering import rehash, tamper
from tests.audit.test_merkle import ref_root_from_path
from tests.commands import run_command
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_blocks(monkeypatch) -> None:
    """Blocks of 16 leaves, so that a test's few hundred events fill several."""
    monkeypatch.setattr(digests, "BLOCK", 16)


@pytest.fixture
def record(small_blocks) -> dict[str, list[Event]]:
    """Two tables, three rounds each, and a signed head over them."""
    stored = {}
    for table in ("T1", "T2"):
        events = [table_opened(table)] + [
            e for n in (1, 2, 3) for e in round_events(n, rng_seed=len(table))
        ]
        stored[table] = events_append(stream=table, expected_version=0, events=events)
    digests.digest_sign()
    return stored


def test_an_events_leaf_index_counts_the_events_before_it_from_the_saved_blocks(
    small_blocks,
) -> None:
    """The index of every event - in a saved block, in the block in progress, past the
    tree's last leaf, and before any block is saved - is the number of events before it."""
    rounds = [e for n in (1, 2, 3) for e in round_events(n)]
    events = events_append(stream="T1", expected_version=0, events=[table_opened("T1"), *rounds])
    assert [digests.leaf_index(e) for e in events] == list(range(len(events)))  # no block saved yet
    digests.digest_sign()
    assert MerkleBlock.objects.count() == len(events) // 16 >= 4
    later = [e for n in (1, 2, 3) for e in round_events(n, rng_seed=2)]
    events_append(
        stream="T2", expected_version=0, events=[table_opened("T2"), *later]
    )  # past the tree
    stored = list(Event.objects.order_by("position"))
    assert len(stored) > 2 * len(events)
    assert [digests.leaf_index(e) for e in stored] == list(range(len(stored)))


def verify() -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify", stdout=out, stderr=err)
    except CommandError as error:
        return error.returncode, err.getvalue() + str(error)
    return 0, out.getvalue()


def test_a_signed_head_is_stored_published_and_verifies(record) -> None:
    """The head is an event of audit.digests, a file with its public key, and the store
    verifies against it."""
    head = Event.objects.get(stream=digests.DIGEST_STREAM)
    published = json.loads((Path(settings.DIGEST_PUBLISHERS[0]) / "latest.json").read_text())
    assert head.payload["size"] == published["size"] == 2 * 76
    assert (
        published["root"] == head.payload["root"] and "BEGIN PUBLIC KEY" in published["public_key"]
    )
    assert head.payload["streams"]["T1"] == [76, record["T1"][-1].hash]
    code, text = verify()
    assert code == 0, text


def test_the_tree_kept_on_the_feed_is_the_tree_of_the_record(record) -> None:
    """The root the subscriber keeps, and every saved block, equal a fold of every event
    from scratch; a subtree served from the blocks equals one from the leaves."""
    rows = Event.objects.order_by("position").values_list(
        "position", "stream", "version", "hash", "seal"
    )
    leaves = [
        merkle.event_leaf(stream=s, version=v, position=p, event_hash=h, seal=x)
        for p, s, v, h, x in rows
    ]
    state = digests.tree_advance()
    assert state.size == len(leaves)
    assert digests._frontier(state).root == merkle.root_of(leaves)
    blocks = list(MerkleBlock.objects.order_by("index").values_list("hash", flat=True))
    assert len(blocks) == len(leaves) // 16
    assert blocks == [
        merkle.root_of(leaves[i * 16 : (i + 1) * 16]).hex() for i in range(len(blocks))
    ]
    assert digests.subtree(32, 64) == merkle.root_of(leaves[32:64])
    assert digests.subtree(0, len(leaves)) == merkle.root_of(leaves)
    # one proof's subtrees, each block read once: the same roots, asked in any order
    once = digests.subtrees()
    for start, end in (
        (len(leaves) - 5, len(leaves)),
        (144, 150),
        (128, len(leaves)),
        (0, 64),
        (144, 152),
        (3, 9),
    ):
        assert once(start, end) == merkle.root_of(leaves[start:end]), (start, end)


def test_an_events_inclusion_proof_checks_out_independently(record) -> None:
    """The proof of an event, and of a whole round, leads to the signed root by the
    RFC's own recursion (the reference in test_merkle)."""
    sth = digests.latest_signed()
    round_two = [e for e in record["T2"] if e.payload.get("round") == 2]
    proof = digests.inclusion_proof_of(round_two)
    assert len(proof["proofs"]) == 25
    for item in proof["proofs"]:
        stored = Event.objects.get(stream=item["stream"], version=item["version"])
        assert item["seal"] == stored.seal and item["hash"] == stored.hash
        leaf = merkle.event_leaf(
            stream=item["stream"],
            version=item["version"],
            position=item["position"],
            event_hash=item["hash"],
            seal=stored.seal,
        )
        assert leaf.hex() == item["leaf"]
        path = [bytes.fromhex(node) for node in item["path"]]
        assert ref_root_from_path(item["index"], sth.size, leaf, path) == sth.root


def test_the_digest_command_proves_an_event_by_its_id_and_names_an_unknown_one(record) -> None:
    """``digest --proof ID``: the event found by its id (through the key table on
    PostgreSQL), its proof printed; an id no event has, or text that is no id, exit 2."""
    event = record["T2"][4]
    code, out, _ = run_command("digest", "--proof", str(event.event_id))
    assert code == 0
    [item] = json.loads(out)["proofs"]
    assert (item["stream"], item["version"], item["hash"]) == ("T2", event.version, event.hash)
    for unknown in (str(uuid.uuid4()), "not-an-id"):
        code, _, err = run_command("digest", "--proof", unknown)
        assert code == 2 and f"--proof {unknown!r}: no such event" in err


def test_each_new_head_proves_the_record_only_grew(record) -> None:
    """A later head carries the consistency proof from the one before, and it verifies."""
    first = digests.latest_signed()
    events_append(stream="T1", expected_version=76, events=round_events(4))
    second, stored = digests.digest_sign()
    assert stored.payload["previous_size"] == first.size
    proof = [bytes.fromhex(node) for node in stored.payload["consistency"]]
    assert merkle.verify_consistency(first.size, second.size, first.root, second.root, proof)


def _truncate() -> None:
    tamper(
        "TRUNCATE audit_event" if connection.vendor == "postgresql" else "DELETE FROM audit_event"
    )


def _cut_tail() -> None:
    tamper("DELETE FROM audit_event WHERE stream = 'T1' AND version > 66")


def _drop_stream() -> None:
    tamper("DELETE FROM audit_event WHERE stream = 'T2'")


def _rehash_settlement() -> None:
    settled = Event.objects.filter(stream="T1", type="round.settled").order_by("version").first()
    payload = dict(settled.payload)
    payload["settlements"] = [
        {**payload["settlements"][0], "net": payload["settlements"][0]["net"] + 1000},
        *payload["settlements"][1:],
    ]
    tamper(
        f"UPDATE audit_event SET payload = '{json.dumps(payload)}' WHERE position = {settled.position}"
    )
    rehash("T1", settled.version)


def _forge_insert() -> None:
    buyin = {"box": 1, "player": "P-forged", "method": "cash", "amount": 500000, "currency": "EUR"}
    last = Event.objects.filter(stream="T1").order_by("-version").first()
    tamper(
        "UPDATE audit_event SET version = version + 1000 WHERE stream = 'T1' AND version >= 30",
        "UPDATE audit_event SET version = version - 999 WHERE stream = 'T1' AND version >= 1030",
        "INSERT INTO audit_event (event_id, stream, version, type, schema_version, occurred_at, recorded_at, actor, "
        "source, payload, prev_hash, hash) VALUES ('00000000-0000-4000-8000-000000000001', 'T1', 30, 'buyin.recorded', "
        f"1, '{last.occurred_at.isoformat()}', '{last.recorded_at.isoformat()}', 'dealer:D1', 'test', "
        f"'{json.dumps(buyin)}', '', '')",
    )
    rehash("T1", 30)


def _swap_two() -> None:
    a, b = Event.objects.filter(stream="T2", type="card.dealt").order_by("version")[:2]
    tamper(
        f"UPDATE audit_event SET version = 999999 WHERE position = {a.position}",
        f"UPDATE audit_event SET version = {a.version} WHERE position = {b.position}",
        f"UPDATE audit_event SET version = {b.version} WHERE position = {a.position}",
    )
    rehash("T2", a.version)


def _swap_positions() -> None:
    a = Event.objects.filter(stream="T1", version=10).get()
    b = Event.objects.filter(stream="T2", version=10).get()
    tamper(
        f"UPDATE audit_event SET position = -1 WHERE position = {a.position}",
        f"UPDATE audit_event SET position = {a.position} WHERE position = {b.position}",
        f"UPDATE audit_event SET position = {b.position} WHERE position = -1",
    )


ATTACKS = {
    # attack: (what it does, the words verify must say)
    "truncated": (
        _truncate,
        ["now holds only 0 of the events", "T1: ends at version 0", "truncated"],
    ),
    "cut tail": (_cut_tail, ["T1: ends at version 66", "truncated: the known head is version 76"]),
    "stream deleted": (_drop_stream, ["T2: ends at version 0", "no event of the stream is there"]),
    "re-hashed settlement": (
        _rehash_settlement,
        ["T1: first bad event is version 76", "head_mismatch", "no longer have its Merkle root"],
    ),
    # the forged row takes the next position, so the chain sees it out of order too
    "forged insert": (
        _forge_insert,
        ["T1: first bad event is version 31", "no longer have its Merkle root"],
    ),
    "swapped and re-hashed": (
        _swap_two,
        ["T2: first bad event is version", "no longer have its Merkle root"],
    ),
    "positions swapped": (_swap_positions, ["no longer have its Merkle root", "(block 0)"]),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_the_chain_cannot_see_is_found_against_the_signed_head(
    record, attack: str
) -> None:
    """Each attack, done as a superuser: verify exits 1 and names where."""
    do, says = ATTACKS[attack]
    do()
    code, text = verify()
    assert code == 1, text
    for words in says:
        assert words in text, text


def test_a_head_whose_signature_fails_is_itself_a_problem(record) -> None:
    """A published head edited after signing (another root) is refused by its signature."""
    path = Path(settings.DIGEST_PUBLISHERS[0]) / "latest.json"
    data = json.loads(path.read_text())
    data["size"] -= 1
    path.write_text(json.dumps(data))
    code, text = verify()
    assert code == 1 and "its signature does not hold" in text


def test_without_a_key_in_production_signing_says_how_to_make_one(
    record, settings, tmp_path
) -> None:
    settings.DIGEST_SIGNING_KEY = str(tmp_path / "missing.pem")
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--new-key") as caught:
        call_command("digest", stdout=io.StringIO())
    assert caught.value.returncode == 2


def test_new_key_writes_a_private_key_once(tmp_path) -> None:
    out = io.StringIO()
    call_command("digest", "--new-key", str(tmp_path / "k.pem"), stdout=out)
    assert "BEGIN PUBLIC KEY" in out.getvalue()
    assert (tmp_path / "k.pem").stat().st_mode & 0o777 == 0o600
    with pytest.raises(CommandError, match="never overwritten"):
        call_command("digest", "--new-key", str(tmp_path / "k.pem"), stdout=io.StringIO())


def test_an_event_forged_at_the_head_after_the_last_signed_head_is_unsealed(record) -> None:
    """Past the last signed head nothing is covered yet; an event inserted there with a
    correct chain hash (computed with the project's own function) still lacks the
    store's seal, and verify names it. A real append after the head verifies."""
    events_append(stream="T1", expected_version=76, events=round_events(4)[:1])
    head = Event.objects.filter(stream="T1").order_by("-version").first()
    forged = {"box": 1, "player": "P-forged", "method": "cash", "amount": 500000, "currency": "EUR"}
    from audit.record.chain import event_hash

    digest = event_hash(
        id="00000000-0000-4000-8000-000000000002",
        stream="T1",
        version=78,
        type="buyin.recorded",
        schema_version=1,
        occurred_at=head.occurred_at,
        recorded_at=head.recorded_at,
        actor="dealer:D1",
        source="test",
        payload=forged,
        prev_hash=head.hash,
    )
    assert verify()[0] == 0
    tamper(
        "INSERT INTO audit_event (event_id, stream, version, type, schema_version, occurred_at, recorded_at, actor, "
        "source, payload, prev_hash, hash, principal, seal) VALUES ('00000000-0000-4000-8000-000000000002', 'T1', 78, "
        f"'buyin.recorded', 1, '{head.occurred_at.isoformat()}', '{head.recorded_at.isoformat()}', 'dealer:D1', "
        f"'test', '{json.dumps(forged)}', '{head.hash}', '{digest}', 'device:device-T1', '{'0' * 64}')"
    )
    code, text = verify()
    assert code == 1
    assert (
        "T1: first bad event is version 78" in text
        and "unsealed: its server seal does not hold" in text
    )
    assert "SEAL_KEY_FALLBACKS" not in text  # T2's seals hold: a forger, not the key


def test_a_store_written_under_another_key_says_so(record, settings) -> None:
    """Not one seal holds - every stream's first sealed row fails - when the store was
    written under another SEAL_KEY (another checkout's dev key, say): verify still fails,
    and says what to do; the key it was written under, as a fallback, verifies it."""
    written_under = settings.SEAL_KEY
    settings.SEAL_KEY = "another-checkouts-key-" + "y" * 40
    code, text = verify()
    assert code == 1
    assert (
        text.count("no seal in the store holds under this SEAL_KEY") == len(record) + 1
    )  # and audit.digests
    settings.SEAL_KEY_FALLBACKS = [written_under]
    assert verify()[0] == 0


def test_each_event_records_who_appended_it(record) -> None:
    """The server's principal, not the client's actor: a service, a device, an ingest."""
    assert {e.principal for e in record["T1"]} == {"server:back-office"}
    assert Event.objects.get(stream=digests.DIGEST_STREAM).principal == "server:digest"
