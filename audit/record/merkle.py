"""A Merkle tree over the whole record, as RFC 9162 (Certificate Transparency 2.0) defines it.

Every event is a leaf, in global-position order: leaf ``i`` is the ``i``-th event by
position (positions may skip numbers; the index does not). A leaf's data binds the event's
content, its place in the record and the store's seal of it: the canonical JSON
(:mod:`.chain`) of its ``hash`` (which covers the content, see :func:`.chain.event_hash`),
``position``, ``seal`` (the store's HMAC of the hash and the appending principal,
``audit.store.seals``; null for a row without one), ``stream`` and ``version`` - so re-hashing an
altered event, moving it to another position or another stream, cutting a tail, deleting a
stream, and stripping or replacing a seal all change the root.

The leaf's layout has a format number, which a signed head states
(:mod:`.signing`): format 2 (:data:`LEAF_FORMAT`, the one signed now) is the above;
format 1, of heads signed before seals entered the leaf, has no ``seal`` member. A tree is
of one format throughout: a head is checked by recomputing its leaves in its format.

Hashes (RFC 9162, 2.1.1), SHA-256, 32 bytes:

- the empty tree: ``SHA-256()``;
- a leaf: ``SHA-256(0x00 || data)``;
- a node: ``SHA-256(0x01 || left || right)``, where for ``n > 1`` leaves the left subtree
  holds the first ``k`` leaves, ``k`` the largest power of two smaller than ``n``.

Proofs (RFC 9162, 2.1.3 and 2.1.4): an *inclusion proof* shows that a leaf is in the tree
of a given root; a *consistency proof* shows that the tree of one root is a prefix of the
tree of a later one (the record only grew). Both are lists of node hashes; this module
makes them from a :class:`Subtrees` source and checks them with nothing but the hashes.

The tree is never held in memory: :class:`Frontier` folds leaves one at a time keeping
one hash per level (the perfect subtrees of the binary representation of the size), and
proofs ask a :class:`Subtrees` source for the roots of aligned ranges, which a store can
serve from saved subtree hashes instead of re-reading every leaf.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .chain import canonical_json

EMPTY_ROOT = hashlib.sha256(b"").digest()
_PLAIN = re.compile(r"^[A-Za-z0-9._-]{1,64}\Z")
_HEX = re.compile(r"^[0-9a-f]{64}\Z")
_LEAF = b"\x00"
_NODE = b"\x01"


LEAF_FORMAT = 2
LEAF_FORMATS = (1, 2)


def leaf_data(
    *,
    stream: str,
    version: int,
    position: int,
    event_hash: str,
    seal: str | None,
    leaf_format: int = LEAF_FORMAT,
) -> bytes:
    """What a leaf hashes: the event's chain hash, where it stands in the record and (from
    format 2) the store's seal of it."""
    if leaf_format == 1:
        return canonical_json(
            {"hash": event_hash, "position": position, "stream": stream, "version": version}
        )
    if leaf_format != 2:
        raise ValueError(f"leaf format {leaf_format!r}: expected one of {LEAF_FORMATS}")
    return canonical_json(
        {
            "hash": event_hash,
            "position": position,
            "seal": seal,
            "stream": stream,
            "version": version,
        }
    )


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(_LEAF + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE + left + right).digest()


def event_leaf(
    *,
    stream: str,
    version: int,
    position: int,
    event_hash: str,
    seal: str | None,
    leaf_format: int = LEAF_FORMAT,
) -> bytes:
    """The leaf hash of one stored event. The canonical JSON of :func:`leaf_data`, written
    directly (a store's table codes and the hex digits of a hash and a seal need no
    escaping; anything else goes through the encoder): this runs once per event of the
    record."""
    if _PLAIN.match(stream) and _HEX.match(event_hash):
        if leaf_format == 2 and seal is not None and _HEX.match(seal):
            data = b'{"hash":"%s","position":%d,"seal":"%s","stream":"%s","version":%d}' % (
                event_hash.encode(),
                position,
                seal.encode(),
                stream.encode(),
                version,
            )
            return hashlib.sha256(_LEAF + data).digest()
        if leaf_format == 1:
            data = b'{"hash":"%s","position":%d,"stream":"%s","version":%d}' % (
                event_hash.encode(),
                position,
                stream.encode(),
                version,
            )
            return hashlib.sha256(_LEAF + data).digest()
    data = leaf_data(
        stream=stream,
        version=version,
        position=position,
        event_hash=event_hash,
        seal=seal,
        leaf_format=leaf_format,
    )
    return hashlib.sha256(_LEAF + data).digest()


def split_point(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n`` >= 2): the size of the left
    subtree of a tree of ``n`` leaves."""
    if n < 2:
        raise ValueError("a tree of fewer than two leaves does not split")
    return 1 << ((n - 1).bit_length() - 1)


class Frontier:
    """The root of a growing tree, in O(log n) memory: one perfect subtree per set bit of
    the size, largest first. ``append`` a leaf hash, read ``root`` at any time."""

    __slots__ = ("_stack", "size")

    def __init__(self) -> None:
        self.size = 0
        self._stack: list[tuple[int, bytes]] = []  # (leaves, hash) of perfect subtrees

    def append(self, leaf: bytes) -> None:
        stack = self._stack
        size, digest = 1, leaf
        while stack and stack[-1][0] == size:
            left_size, left = stack.pop()
            size, digest = left_size + size, node_hash(left, digest)
        stack.append((size, digest))
        self.size += 1

    def extend(self, leaves: Iterable[bytes]) -> None:
        for leaf in leaves:
            self.append(leaf)

    @property
    def root(self) -> bytes:
        """MTH of the leaves so far: the perfect subtrees joined right to left (RFC 9162's
        recursion splits at the largest power of two, which is exactly that)."""
        if not self._stack:
            return EMPTY_ROOT
        digest = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            digest = node_hash(left, digest)
        return digest

    def perfect_subtrees(self) -> list[tuple[int, bytes]]:
        """The (leaves, hash) of the perfect subtrees, largest first: enough to go on
        appending from here (a saved frontier)."""
        return list(self._stack)

    @classmethod
    def resume(cls, size: int, subtrees: Sequence[tuple[int, bytes]]) -> Frontier:
        if sum(n for n, _ in subtrees) != size:
            raise ValueError("the subtrees do not add up to the size")
        frontier = cls()
        frontier.size = size
        frontier._stack = list(subtrees)
        return frontier


def root_of(leaves: Iterable[bytes]) -> bytes:
    frontier = Frontier()
    frontier.extend(leaves)
    return frontier.root


Subtrees = Callable[[int, int], bytes]
"""``subtree(start, end)`` -> MTH of leaves ``start`` .. ``end - 1``. Proofs ask only for
ranges RFC 9162's recursion produces: ``end - start`` leaves starting at a multiple of the
largest power of two not above the range's size (aligned), or a tail of the tree."""


def subtrees_of(leaves: Sequence[bytes]) -> Subtrees:
    """A :data:`Subtrees` source over leaf hashes held in memory (tests, small trees)."""

    def subtree(start: int, end: int) -> bytes:
        return root_of(leaves[start:end])

    return subtree


def inclusion_proof(index: int, size: int, subtree: Subtrees) -> list[bytes]:
    """PATH(index, D[size]) of RFC 9162, 2.1.3.1."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    proof: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = split_point(end - start)
        if index < start + k:
            proof.append(subtree(start + k, end))
            end = start + k
        else:
            proof.append(subtree(start, start + k))
            start += k
    proof.reverse()  # the recursion appends from the leaf's level upwards
    return proof


def consistency_proof(old_size: int, new_size: int, subtree: Subtrees) -> list[bytes]:
    """PROOF(old_size, D[new_size]) of RFC 9162, 2.1.4.1 (empty when the sizes are equal
    or the old tree is empty)."""
    if not 0 <= old_size <= new_size:
        raise ValueError(f"a tree of {old_size} cannot grow into one of {new_size}")
    if old_size == 0 or old_size == new_size:
        return []
    proof: list[bytes] = []
    start, end, whole = 0, new_size, True
    while end != old_size:  # the old tree is leaves 0 .. old_size - 1, a prefix of start .. end
        k = split_point(end - start)
        if old_size - start <= k:
            proof.append(subtree(start + k, end))
            end = start + k
        else:
            proof.append(subtree(start, start + k))
            start += k
            whole = False
    if not whole:
        proof.append(subtree(start, end))
    proof.reverse()
    return proof


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes | None:
    """The root an inclusion proof leads to (RFC 9162, 2.1.3.2), or None when the proof
    cannot be one for that index and size."""
    if not 0 <= index < size:
        return None
    fn, sn = index, size - 1
    digest = leaf
    for node in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            digest = node_hash(node, digest)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            digest = node_hash(digest, node)
        fn >>= 1
        sn >>= 1
    return digest if sn == 0 else None


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> bool:
    return root_from_inclusion(index, size, leaf, proof) == root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162, 2.1.4.2: does ``proof`` show the tree of ``old_root`` to be the first
    ``old_size`` leaves of the tree of ``new_root``?"""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof and old_root == EMPTY_ROOT
    if not proof:
        return False
    nodes = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the first node
        nodes.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = nodes[0]
    for node in nodes[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(node, fr)
            sr = node_hash(node, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, node)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


@dataclass(frozen=True, slots=True)
class TreeHead:
    """A tree head: the record's first ``size`` events have Merkle root ``root``."""

    size: int
    root: bytes

    def as_dict(self) -> dict[str, object]:
        return {"size": self.size, "root": self.root.hex()}
