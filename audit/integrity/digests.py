"""Signed tree heads of the record: the Merkle tree (RFC 9162) over every event, kept up
to date by a feed subscriber, signed with Ed25519, stored as events, handed to publishers,
and checked by ``manage.py verify``.

- **The tree** (:mod:`audit.record.merkle`): leaf ``i`` is the ``i``-th event by global
  position, binding its hash, stream, version, position and the store's seal of it (leaf
  format 2: a seal stripped or replaced changes the root). The subscriber
  ``audit.merkle`` folds each new batch of the feed into :class:`audit.models.MerkleState`
  (size, last position, the frontier's perfect subtrees, each stream's head) and saves
  the root of every aligned block of :data:`BLOCK` leaves (:class:`audit.models.MerkleBlock`),
  so proofs need not re-hash the whole record.
- **Signing** (:func:`digest_sign`, ``manage.py digest``; the signer, ``digest --follow``,
  :func:`sign_following`: a head within ``DIGEST_INTERVAL_MS`` of a commit): the current
  head - size, root, the stream heads, a time, the leaves' format - signed with the key in
  ``DIGEST_SIGNING_KEY`` (a PEM file outside the database); appended as ``digest.signed``
  to the stream ``audit.digests`` with the consistency proof from the head before it, and
  handed to every publisher (:mod:`audit.integrity.publishers`: folders, HTTP, S3 with object lock),
  out of the database owner's reach.
- **Checking** (:func:`head_problems`, run by ``manage.py verify``): the store against a
  signed head - the latest in the database, the latest at each publisher, a file given.
  A detached day's events (PostgreSQL archival, regulator.archive) are leaves all the same:
  their rows (position, stream, version, hash, seal) are kept in ``audit_event_detached``
  and read in their places. A head whose signature fails with the trusted keys is itself
  a problem. The first ``size`` events are re-read in position order and their root
  recomputed, each leaf in the head's own format: a cut tail, a deleted stream, an event
  inserted, swapped, re-hashed or moved to another position, a seal stripped or replaced
  changes it, and the first block that differs from the saved blocks names the positions;
  the chain verifier, given the head's stream heads, names the stream and version of a
  cut tail (``truncated``) or a rewritten chain (``head_mismatch``).
- **Proofs**: :func:`inclusion_proof_of` (an event, or a round's events, against the
  latest head) and consistency proofs between two sizes (:func:`subtrees` serves both).

What a signed head cannot show: an event forged at the head, or a tail cut, *after* the
last head was signed - until the next head covers it. The signer keeps that window to
about ``DIGEST_INTERVAL_MS``; the seal of each row (:mod:`audit.store.seals`) names a forged one
even there.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction

from audit.feed.subscribers import Batch, Subscriber
from audit.models import Event, MerkleBlock, MerkleState
from audit.record import merkle, signing
from audit.record.chain import format_timestamp
from audit.store.errors import VersionConflict
from audit.store.partitions import LEAVES, has_leaves
from audit.store.streams import NewEvent, events_append, stream_version

from .publishers import PublishError, document, publishers

log = logging.getLogger(__name__)

BLOCK = 1024
DIGEST_STREAM = "audit.digests"
SUBSCRIBER_NAME = "audit.merkle"
_COLUMNS = ("position", "stream", "version", "hash", "seal")
Row = tuple[int, str, int, str, str | None]  # a leaf's row: position, stream, version, hash, seal
MAX_POSITION = 2**63 - 1  # bigint's


class DigestError(Exception):
    """Signing or checking cannot go on (no key, an unusable key, nothing to sign)."""


class Unpublished(Exception):
    """A head was signed and stored, but a publisher did not keep it (each line says which
    and why); ``sth`` and ``stored`` are the head and its event."""

    def __init__(
        self, sth: signing.SignedTreeHead, stored: Event | None, failed: list[str]
    ) -> None:
        super().__init__("; ".join(failed))
        self.sth, self.stored, self.failed = sth, stored, failed


# --- the tree -----------------------------------------------------------------------------------


def _rows_after(
    position: int, upto: int | None = None, *, limit: int | None = None
) -> Iterator[Row]:
    """The leaves' rows (position, stream, version, hash, seal) after ``position`` in position
    order: the events', and where days were detached (PostgreSQL) the detached events'
    kept in ``audit_event_detached``, merged in their places."""
    if _detached_after(position, upto):
        return _rows_with_detached(position, upto, limit)
    rows = Event.objects.filter(position__gt=position).order_by("position")
    if upto is not None:
        rows = rows.filter(position__lte=upto)
    query = rows.values_list(*_COLUMNS)
    if limit is not None:
        query = query[:limit]
        if limit <= BLOCK:  # a block at most: one round trip, not a server-side cursor's three
            return iter(list(query))
    return query.iterator(chunk_size=5000)


def _detached_after(position: int, upto: int | None) -> bool:
    """Whether detached leaves lie after ``position`` (up to ``upto``): one probe of the
    leaves' primary key, and none at all where nothing can be detached (SQLite)."""
    if not has_leaves(connection):
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT EXISTS (SELECT FROM {LEAVES} WHERE position > %s AND position <= %s)",
            [position, MAX_POSITION if upto is None else upto],
        )
        return bool(cursor.fetchone()[0])


def _rows_with_detached(position: int, upto: int | None, limit: int | None) -> Iterator[Row]:
    """:func:`_rows_after` over the events and the detached leaves, through a server-side
    cursor (a Merge Append of the two primary keys' index scans)."""
    bound = [position, MAX_POSITION if upto is None else upto]
    sql = (
        f"SELECT position, stream, version, hash, seal FROM {Event._meta.db_table} WHERE position > %s "
        f"AND position <= %s UNION ALL SELECT position, stream, version, hash, seal FROM {LEAVES} "
        "WHERE position > %s AND position <= %s "
        "ORDER BY position" + (" LIMIT %s" if limit is not None else "")
    )
    cursor = connection.chunked_cursor()
    try:
        cursor.execute(sql, bound + bound + ([limit] if limit is not None else []))
        while rows := cursor.fetchmany(5000):
            yield from rows
    finally:
        cursor.close()


def _leaf(row: Row, leaf_format: int = merkle.LEAF_FORMAT) -> bytes:
    position, stream, version, digest, seal = row
    return merkle.event_leaf(
        stream=stream,
        version=version,
        position=position,
        event_hash=digest,
        seal=seal,
        leaf_format=leaf_format,
    )


def tree_state() -> MerkleState:
    state, _ = MerkleState.objects.get_or_create(name="record")
    return state


def _frontier(state: MerkleState) -> merkle.Frontier:
    return merkle.Frontier.resume(state.size, [(n, bytes.fromhex(h)) for n, h in state.frontier])


def _block_start(index: int) -> int:
    """The position before block ``index``'s first leaf (0 for the first block)."""
    if index == 0:
        return 0
    before = (
        MerkleBlock.objects.filter(index=index - 1).values_list("last_position", flat=True).first()
    )
    if before is None:
        raise DigestError(
            f"the tree's block {index - 1} is missing: run manage.py digest --rebuild"
        )
    return before


def tree_advance(upto: int | None = None) -> MerkleState:
    """Fold the events after the tree's last leaf (up to position ``upto``) into it.
    Idempotent, and safe to run twice at once: the state moves by compare-and-set, and
    a run that loses starts again from the winner's state."""
    for _ in range(10):
        state = tree_state()
        frontier = _frontier(state)
        streams = dict(state.streams)
        block_index = state.size // BLOCK
        # the leaves of the block in progress, re-read: a block's root is saved when it fills
        pending = (
            [_leaf(row) for row in _rows_after(_block_start(block_index), limit=state.size % BLOCK)]
            if state.size % BLOCK
            else []
        )
        first_position = None
        position = state.position
        blocks = []
        for row in _rows_after(state.position, upto):
            leaf = _leaf(row)
            frontier.append(leaf)
            pending.append(leaf)
            position = row[0]
            if len(pending) == 1:
                first_position = row[0]
            streams[row[1]] = [row[2], row[3]]
            if len(pending) == BLOCK:
                if first_position is None:  # the block began before this run
                    first_position = _first_position_of_block(block_index)
                blocks.append(
                    MerkleBlock(
                        index=block_index,
                        first_position=first_position,
                        last_position=position,
                        hash=merkle.root_of(pending).hex(),
                    )
                )
                block_index += 1
                pending = []
                first_position = None
        if frontier.size == state.size:
            return state
        with transaction.atomic():
            moved = MerkleState.objects.filter(name=state.name, size=state.size).update(
                size=frontier.size,
                position=position,
                streams=streams,
                updated_at=datetime.now(UTC),
                frontier=[[n, h.hex()] for n, h in frontier.perfect_subtrees()],
            )
            if not moved:
                continue
            MerkleBlock.objects.bulk_create(blocks, ignore_conflicts=True)
        return tree_state()
    raise DigestError("the Merkle tree kept moving under this run; try again")


def _first_position_of_block(index: int) -> int:
    after = _block_start(index)
    first = next(_rows_after(after, limit=1), None)
    assert first is not None
    return first[0]


def _advance_batch(batch: Batch) -> None:
    tree_advance(batch.upto)


SUBSCRIBER = Subscriber(SUBSCRIBER_NAME, _advance_batch)


def _leaves(start: int, end: int) -> list[bytes]:
    """The leaf hashes of leaves ``start`` .. ``end - 1``, read from the events."""
    block = start // BLOCK
    skip = start - block * BLOCK
    rows = list(_rows_after(_block_start(block), limit=end - block * BLOCK))
    return [_leaf(row) for row in rows[skip:]]


def subtree(start: int, end: int, leaves: Callable[[int, int], list[bytes]] = _leaves) -> bytes:
    """MTH of leaves ``start`` .. ``end - 1`` (the :data:`audit.record.merkle.Subtrees`
    a proof asks for): whole aligned blocks from their saved roots, the rest from events."""
    size = end - start
    if size <= BLOCK or start % BLOCK or size % BLOCK or size & (size - 1):
        if size > BLOCK:
            k = merkle.split_point(size)
            return merkle.node_hash(
                subtree(start, start + k, leaves), subtree(start + k, end, leaves)
            )
        return merkle.root_of(leaves(start, end))
    hashes = MerkleBlock.objects.filter(index__gte=start // BLOCK, index__lt=end // BLOCK).order_by(
        "index"
    )
    roots = [bytes.fromhex(h) for h in hashes.values_list("hash", flat=True)]
    if len(roots) != size // BLOCK:
        return merkle.root_of(leaves(start, end))
    return merkle.root_of(roots)  # a perfect tree of block roots: their MTH is the range's


def subtrees() -> merkle.Subtrees:
    """:func:`subtree` for one proof, each block's leaves read from the events once: a
    proof asks for several ranges of the same unfinished blocks (a consistency proof's
    were seven reads of up to a block each)."""
    read: dict[int, list[bytes]] = {}

    def leaves(start: int, end: int) -> list[bytes]:
        block = start // BLOCK
        if end > (block + 1) * BLOCK:  # beyond one block (no saved roots): as it comes
            return _leaves(start, end)
        need = end - block * BLOCK
        if len(read.get(block, ())) < need:
            read[block] = [_leaf(row) for row in _rows_after(_block_start(block), limit=need)]
        return read[block][start - block * BLOCK : need]

    return lambda start, end: subtree(start, end, leaves)


# --- keys ---------------------------------------------------------------------------------------


def signing_key() -> signing.Ed25519PrivateKey:
    """The key in ``DIGEST_SIGNING_KEY``. In development (DEBUG) a missing one is made;
    in production it must exist."""
    path = Path(settings.DIGEST_SIGNING_KEY)
    if not path.exists():
        if not settings.DEBUG:
            raise DigestError(
                f"DIGEST_SIGNING_KEY {path} does not exist: make one with manage.py digest --new-key {path}"
            )
        write_new_key(path)
    try:
        return signing.load_private_key(path.read_bytes())
    except (OSError, signing.UnusableKey) as error:
        raise DigestError(f"DIGEST_SIGNING_KEY {path}: {error}") from None


def write_new_key(path: Path) -> signing.Ed25519PrivateKey:
    """A new private key at ``path`` (readable by its owner only); refuses to overwrite."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = signing.new_private_key_pem()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(pem)
    return signing.load_private_key(pem)


def trusted_keys() -> dict[str, signing.Ed25519PublicKey]:
    """The public keys a head may be signed with, by key id: ``DIGEST_TRUSTED_KEYS``
    (rotated-out keys stay there), and the signing key's own."""
    keys = {}
    for name in settings.DIGEST_TRUSTED_KEYS:
        try:
            key = signing.load_public_key(Path(name).read_bytes())
        except (OSError, signing.UnusableKey) as error:
            raise DigestError(f"DIGEST_TRUSTED_KEYS {name}: {error}") from None
        keys[signing.key_id(key)] = key
    if Path(settings.DIGEST_SIGNING_KEY).exists():
        own = signing_key().public_key()
        keys.setdefault(signing.key_id(own), own)
    return keys


# --- signing ------------------------------------------------------------------------------------


def _head_of(payload: dict[str, Any]) -> signing.SignedTreeHead:
    return signing.SignedTreeHead.from_dict(payload)


def latest_signed(*, leaf_format: int | None = None) -> signing.SignedTreeHead | None:
    """The latest stored head (of ``leaf_format``'s leaves only, when given)."""
    payloads = (
        Event.objects.filter(stream=DIGEST_STREAM, type="digest.signed")
        .order_by("-version")
        .values_list("payload", flat=True)
    )
    if leaf_format is None:
        payload = payloads.first()
        return None if payload is None else _head_of(payload)
    for payload in payloads.iterator(chunk_size=100):
        if payload.get("leaf_format", 1) == leaf_format:
            return _head_of(payload)
    return None


def digest_sign(
    *, now: datetime | None = None, strict: bool = False
) -> tuple[signing.SignedTreeHead, Event]:
    """Bring the tree up to the feed's head, sign it, append the head and publish it. A
    publisher that fails is logged; with ``strict``, :class:`Unpublished` is raised
    after every publisher was tried (the head is signed and stored all the same)."""
    sth, stored, _ = _sign(now=now, strict=strict, store=True)
    assert stored is not None
    return sth, stored


def published_heads() -> list[signing.SignedTreeHead]:
    """The latest head each publisher holds whose signature holds (a publisher that cannot
    be read, or holds none, gives none)."""
    heads = []
    keys = trusted_keys()
    for publisher in publishers():
        try:
            text = publisher.latest()
            sth = None if text is None else _head_text(text, publisher.where)
        except (PublishError, DigestError) as error:
            log.warning("the latest head at a publisher could not be read: %s", error)
            continue
        if sth is not None and signing.verify_head(sth, keys) is None:
            heads.append(sth)
    return heads


def _sign(
    *,
    now: datetime | None,
    strict: bool,
    store: bool,
    known: Sequence[signing.SignedTreeHead] | None = None,
) -> tuple[signing.SignedTreeHead, Event | None, int]:
    """:func:`digest_sign`, and the position of the head's last leaf; with ``store`` false
    the head is only handed to the publishers as their latest (the signer's heads between
    two it stores: the record keeps one ``DIGEST_EVERY_SECONDS``). The new head must
    extend every head signed before that is known - the latest in the database and
    ``known`` (the latest at each publisher when not given; the signer passes the last it
    signed): a record that no longer has a known head's events as they were is not signed
    over (:class:`DigestError`), so that deleting the database's heads after cutting a tail
    does not get the cut record signed anew."""
    key = signing_key()
    now = now or datetime.now(UTC)
    known = list(published_heads() if known is None else known)
    for _ in range(5):
        state = tree_advance()
        if state.size == 0:
            raise DigestError("the record holds no events: there is nothing to sign")
        latest = latest_signed()
        # the head this one grew from: the latest of its leaf format (the first head of a
        # format names none - no consistency proof joins trees of two formats)
        stored = (
            latest
            if latest is None or latest.leaf_format == merkle.LEAF_FORMAT
            else latest_signed(leaf_format=merkle.LEAF_FORMAT)
        )
        earlier = [
            head
            for head in (stored, *known)
            if head is not None and head.leaf_format == merkle.LEAF_FORMAT
        ]
        root = _frontier(state).root
        proofs = subtrees()
        for head in earlier:
            if head.size > state.size or not merkle.verify_consistency(
                head.size,
                state.size,
                head.root,
                root,
                merkle.consistency_proof(head.size, state.size, proofs),
            ):
                raise DigestError(
                    f"the record does not extend the signed head of {head.size:,} events of "
                    f"{format_timestamp(head.timestamp)}: events it covers were removed or changed; not signing over "
                    "them (manage.py verify names what)"
                )
        previous = max(earlier, key=lambda head: head.size, default=None)
        streams = {name: (version, digest) for name, (version, digest) in state.streams.items()}
        sth = signing.sign_head(
            merkle.TreeHead(state.size, root),
            timestamp=now,
            private_key=key,
            streams=streams,
            leaf_format=merkle.LEAF_FORMAT,
        )
        consistency = (
            [] if previous is None else merkle.consistency_proof(previous.size, state.size, proofs)
        )
        proof = {
            "previous_size": previous.size if previous else None,
            "previous_root": previous.root.hex() if previous else None,
            "consistency": [node.hex() for node in consistency],
        }
        event = None
        if store:
            try:
                event = events_append(
                    principal="server:digest",
                    stream=DIGEST_STREAM,
                    expected_version=stream_version(DIGEST_STREAM),
                    now=now,
                    events=[
                        NewEvent(
                            id=uuid.uuid4(),
                            type="digest.signed",
                            payload={**sth.as_dict(), **proof},
                            occurred_at=now,
                            actor="server:digest",
                            source="back-office",
                        )
                    ],
                )[0]
            except VersionConflict:
                continue
        unpublished = publish(sth, key.public_key(), proof, archive=store)
        if unpublished and strict:
            raise Unpublished(sth, event, unpublished)
        return sth, event, state.position
    raise DigestError("another signer kept appending heads; try again")


def publish(
    sth: signing.SignedTreeHead,
    public_key: signing.Ed25519PublicKey,
    proof: dict[str, Any] | None = None,
    *,
    archive: bool = True,
) -> list[str]:
    """Hand the head, with its public key (and the consistency proof from the head before
    it), to every publisher (:mod:`audit.integrity.publishers`), as their latest and, with
    ``archive``, kept apart too. Returns what failed, one line each: a publisher that
    fails does not stop the others."""
    text = document({**sth.as_dict(), **(proof or {})}, signing.public_pem(public_key))
    failed = []
    for publisher in publishers():
        try:
            publisher.publish(sth.size, sth.timestamp, text, archive=archive)
        except PublishError as error:
            log.error("signed head of %s events not published: %s", sth.size, error)
            failed.append(str(error))
    return failed


def _head_text(text: bytes, where: str) -> signing.SignedTreeHead:
    try:
        return _head_of(json.loads(text))
    except (ValueError, TypeError) as error:
        raise DigestError(f"{where}: not a signed head ({error})") from None


def read_head_file(path: str | Path) -> signing.SignedTreeHead:
    try:
        text = Path(path).read_bytes()
    except OSError as error:
        raise DigestError(f"{path}: not a signed head file ({error.strerror or error})") from None
    return _head_text(text, str(path))


# --- checking -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HeadProblem:
    detail: str

    def __str__(self) -> str:
        return self.detail


def head_problems(sth: signing.SignedTreeHead, *, source: str) -> list[HeadProblem]:
    """The store against one signed head (``source`` says where the head came from)."""
    label = f"the signed head of {format_timestamp(sth.timestamp)} ({source}, {sth.size:,} events)"
    why = signing.verify_head(sth, trusted_keys())
    if why is not None:
        return [HeadProblem(f"{label}: its signature does not hold: {why}")]
    frontier = merkle.Frontier()
    block, pending, first = 0, [], None
    # the saved blocks are of the current leaf format: an older head's leaves are not theirs
    saved = (
        dict(MerkleBlock.objects.values_list("index", "hash"))
        if sth.leaf_format == merkle.LEAF_FORMAT
        else {}
    )
    differs: str | None = None
    for row in _rows_after(0, limit=sth.size):
        leaf = _leaf(row, sth.leaf_format)
        frontier.append(leaf)
        pending.append(leaf)
        first = row[0] if first is None else first
        if len(pending) == BLOCK:
            if differs is None and block in saved and merkle.root_of(pending).hex() != saved[block]:
                differs = (
                    f"positions {first}..{row[0]} (block {block}) differ from the tree built as "
                    "they were appended"
                )
            block, pending, first = block + 1, [], None
    if frontier.size < sth.size:
        return [
            HeadProblem(
                f"{label}: the record now holds only {frontier.size} of the events it covers "
                "(events removed, or the table emptied)"
            )
        ]
    if frontier.root != sth.root:
        where = differs or (
            "the changed events lie in the last, unfinished block or the saved blocks were changed too"
            if sth.leaf_format == merkle.LEAF_FORMAT
            else "no saved blocks of its leaf format to say where"
        )
        seals = ", or a seal stripped or replaced" if sth.leaf_format >= 2 else ""
        return [
            HeadProblem(
                f"{label}: the first {sth.size:,} events no longer have its Merkle root "
                f"(an event changed, inserted, removed, re-hashed or moved{seals}): {where}"
            )
        ]
    return []


@dataclass(frozen=True, slots=True)
class HeadSearch:
    """The heads ``verify`` checks, each with where it came from, and every place looked
    in with what was found there (a line each, for a person)."""

    heads: list[tuple[signing.SignedTreeHead, str]]
    looked: list[str]
    unread: list[str]  # publishers that could not be read, a line each


def signed_heads_to_check(extra: Sequence[str] = ()) -> HeadSearch:
    """The heads ``verify`` checks: the latest stored in the database, the latest each
    publisher holds, and any given files (a file that is not a head: DigestError)."""
    heads, looked, unread = [], [], []
    stored = latest_signed()
    if stored is not None:
        heads.append((stored, "stored in audit.digests"))
    looked.append(
        "the heads in the database (audit.digests): "
        + (f"the latest of {stored.size:,} events" if stored else "none")
    )
    for publisher in publishers():
        try:
            text = publisher.latest()
        except PublishError as error:
            unread.append(str(error))
            looked.append(f"{publisher.where}: could not be read ({error})")
            continue
        if text is None:
            looked.append(f"{publisher.where}: none")
            continue
        try:
            sth = _head_text(text, publisher.where)
        except DigestError as error:
            unread.append(str(error))
            looked.append(f"{publisher.where}: {error}")
            continue
        heads.append((sth, publisher.where))
        looked.append(f"{publisher.where}: the latest of {sth.size:,} events")
    for path in extra:
        sth = read_head_file(path)
        heads.append((sth, path))
        looked.append(f"--head {path}: {sth.size:,} events")
    unique: dict[tuple[int, bytes], tuple[signing.SignedTreeHead, str]] = {}
    for sth, source in heads:
        unique.setdefault((sth.size, sth.root), (sth, source))
    return HeadSearch(list(unique.values()), looked, unread)


def leaf_position(index: int) -> int:
    """The position of leaf ``index`` (the tree brought up to it first): read from the
    saved block before it, at most a block's rows."""
    if tree_state().size <= index:
        tree_advance()
    rows = list(_rows_after(_block_start(index // BLOCK), limit=index % BLOCK + 1))
    if len(rows) != index % BLOCK + 1:
        raise DigestError(f"the record holds no leaf {index}")
    return rows[-1][0]


def unsigned_after(position: int) -> bool:
    """Whether an event other than a signed head came after ``position``: what a new head
    would cover that the one whose last leaf is there does not."""
    return Event.objects.filter(position__gt=position).exclude(stream=DIGEST_STREAM).exists()


def covered_position() -> int | None:
    """The position of the latest head's last leaf (None: no head yet)."""
    latest = latest_signed()
    return None if latest is None else leaf_position(latest.size - 1)


def digest_sign_if_needed(
    *, now: datetime | None = None, strict: bool = False
) -> tuple[signing.SignedTreeHead, Event] | None:
    """:func:`digest_sign` when events other than heads came after the latest head (None:
    the latest covers all there is but heads; an empty record too)."""
    covered = covered_position()
    if not unsigned_after(0 if covered is None else covered):
        return None
    return digest_sign(now=now, strict=strict)


# --- proofs -------------------------------------------------------------------------------------


def leaf_index(event: Event) -> int:
    """The event's index among the tree's leaves: how many events come before it. Counted
    from the end of the last saved block before it, so that a recall or an export reads at
    most a block's positions instead of counting the whole record (a count of every
    earlier event is a scan of the table, growing with the years)."""
    before = (
        MerkleBlock.objects.filter(last_position__lt=event.position)
        .order_by("-index")
        .values_list("index", "last_position")
        .first()
    )
    block, after = (before[0] + 1, before[1]) if before is not None else (0, 0)
    count = Event.objects.filter(position__gt=after, position__lt=event.position).count()
    if has_leaves(connection):  # a detached day's events are leaves all the same
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT count(*) FROM {LEAVES} WHERE position > %s AND position < %s",
                [after, event.position],
            )
            count += cursor.fetchone()[0]
    return block * BLOCK + count


def inclusion_proof_of(
    events: Sequence[Event], sth: signing.SignedTreeHead | None = None
) -> dict[str, Any]:
    """Inclusion proofs of ``events`` (one, or a round's) in the tree of a signed head
    (the latest stored one by default), with what a verifier needs to check them."""
    sth = sth or latest_signed()
    if sth is None:
        raise DigestError("no head has been signed yet: run manage.py digest")
    if sth.leaf_format != merkle.LEAF_FORMAT:
        raise DigestError(
            f"the signed head of {sth.size:,} events has leaves of format {sth.leaf_format}, the tree "
            f"now format {merkle.LEAF_FORMAT}: sign a new head first (manage.py digest)"
        )
    proofs = []
    proofs_subtree = subtrees()
    for event in events:
        index = leaf_index(event)
        if index >= sth.size:
            raise DigestError(
                f"event {event.event_id} (position {event.position}) came after the latest signed head "
                f"({sth.size:,} events): sign a new one first"
            )
        leaf = _leaf((event.position, event.stream, event.version, event.hash, event.seal))
        proofs.append(
            {
                "event": str(event.event_id),
                "stream": event.stream,
                "version": event.version,
                "position": event.position,
                "hash": event.hash,
                "seal": event.seal,
                "index": index,
                "leaf": leaf.hex(),
                "path": [
                    node.hex() for node in merkle.inclusion_proof(index, sth.size, proofs_subtree)
                ],
            }
        )
    return {"head": sth.as_dict(), "proofs": proofs}


# --- the signer -----------------------------------------------------------------------------------


def sign_following(
    *,
    interval: float,
    stop: Callable[[], bool],
    poll: float = 0.05,
    store_every: float | None = None,
    signed: Callable[[signing.SignedTreeHead], object] | None = None,
    sleep: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Sign a head whenever events other than heads came after the latest one, at most
    once every ``interval`` seconds (coalesced: a burst of appends gets one head), until
    ``stop()``; returns how many were signed. What a commit waits for its head is at
    most about ``interval`` (while appends keep coming) or ``poll`` (after a quiet spell),
    plus the signing. Every head goes to the publishers as their latest; one every
    ``store_every`` seconds (``DIGEST_EVERY_SECONDS``; the first of a run too) is also
    stored in the record and archived at the publishers - two heads a second kept for
    ever would outweigh the tables' own events. A failure (the database gone, no key, a
    publisher down) is logged and tried again: the signer outlives it."""
    store_every = settings.DIGEST_EVERY_SECONDS if store_every is None else store_every
    stored_at = float("-inf")
    covered: int | None = None
    known: list[signing.SignedTreeHead] | None = (
        None  # None: the publishers' latest, read at the first signing
    )
    last = float("-inf")
    count = 0
    while not stop():
        try:
            if covered is None:
                covered = covered_position() or 0
            if not unsigned_after(covered):
                sleep(poll)
                continue
            wait = last + interval - clock()
            if wait > 0:
                sleep(min(wait, poll))
                continue
            last = clock()
            store = last - stored_at >= store_every
            sth, _, covered = _sign(now=None, strict=False, store=store, known=known)
            stored_at = last if store else stored_at
            known = [sth]  # what the next head must extend, whatever becomes of the database's
            count += 1
            if signed is not None:
                signed(sth)
        except (DigestError, DatabaseError) as error:
            log.error("the signer could not sign a head, and tries again: %s", error)
            if isinstance(error, DatabaseError) and not connection.in_atomic_block:
                connection.close()  # a new connection next time, if that one broke
            covered = None
            sleep(max(interval, poll))
    return count
