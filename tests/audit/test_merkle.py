"""The Merkle tree of the record against an independent reading of RFC 9162.

The reference below is written straight from the RFC's recursive definitions (2.1.1
MTH, 2.1.3.1 PATH, 2.1.4.1 PROOF/SUBPROOF) and checks proofs by rebuilding the root
recursively - it shares no code with :mod:`audit.record.merkle`, which folds leaves
iteratively and verifies proofs with the RFC's bit-walking algorithms (2.1.3.2, 2.1.4.2).
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.record import merkle

# --- the reference, from the RFC's text -------------------------------------------------------


def ref_leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def ref_k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def ref_mth(d: list[bytes]) -> bytes:
    """MTH over leaf *data* (not leaf hashes), RFC 9162 2.1.1."""
    if not d:
        return hashlib.sha256(b"").digest()
    if len(d) == 1:
        return ref_leaf(d[0])
    k = ref_k(len(d))
    return hashlib.sha256(b"\x01" + ref_mth(d[:k]) + ref_mth(d[k:])).digest()


def ref_path(m: int, d: list[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = ref_k(len(d))
    if m < k:
        return ref_path(m, d[:k]) + [ref_mth(d[k:])]
    return ref_path(m - k, d[k:]) + [ref_mth(d[:k])]


def ref_subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    n = len(d)
    if m == n:
        return [] if b else [ref_mth(d)]
    k = ref_k(n)
    if m <= k:
        return ref_subproof(m, d[:k], b) + [ref_mth(d[k:])]
    return ref_subproof(m - k, d[k:], False) + [ref_mth(d[:k])]


def ref_proof(m: int, d: list[bytes]) -> list[bytes]:
    return ref_subproof(m, d, True) if 0 < m < len(d) else []


def ref_root_from_path(m: int, n: int, leaf: bytes, path: list[bytes]) -> bytes | None:
    """Rebuild the root top-down: the last proof node is the sibling at the top split."""
    if n == 1:
        return leaf if not path else None
    if not path:
        return None
    k = ref_k(n)
    top, rest = path[-1], path[:-1]
    if m < k:
        below = ref_root_from_path(m, k, leaf, rest)
        return None if below is None else hashlib.sha256(b"\x01" + below + top).digest()
    below = ref_root_from_path(m - k, n - k, leaf, rest)
    return None if below is None else hashlib.sha256(b"\x01" + top + below).digest()


def data(n: int) -> list[bytes]:
    return [f"event {i}".encode() for i in range(n)]


SIZES = list(range(1, 34)) + [64, 65, 100, 127, 128, 129]


# --- roots -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, *SIZES])
def test_the_root_is_rfc_9162s_mth(n: int) -> None:
    """The streaming frontier gives MTH of every size, the empty tree included."""
    d = data(n)
    assert merkle.root_of([merkle.leaf_hash(x) for x in d]) == ref_mth(d)


def test_a_frontier_resumed_from_its_subtrees_goes_on_to_the_same_root() -> None:
    """A saved frontier (its perfect subtrees) resumes appending where it stopped."""
    leaves = [merkle.leaf_hash(x) for x in data(77)]
    first = merkle.Frontier()
    first.extend(leaves[:45])
    resumed = merkle.Frontier.resume(45, first.perfect_subtrees())
    resumed.extend(leaves[45:])
    assert resumed.root == ref_mth(data(77))
    assert [n for n, _ in first.perfect_subtrees()] == [32, 8, 4, 1]


# --- inclusion ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_inclusion_proofs_equal_the_rfcs_path_and_verify(n: int) -> None:
    """Every leaf's proof is the RFC's PATH; the production verifier and the reference
    both lead from the leaf to the root."""
    d = data(n)
    leaves = [merkle.leaf_hash(x) for x in d]
    source = merkle.subtrees_of(leaves)
    root = ref_mth(d)
    for m in range(n):
        proof = merkle.inclusion_proof(m, n, source)
        assert proof == ref_path(m, d)
        assert merkle.verify_inclusion(m, n, leaves[m], proof, root)
        assert ref_root_from_path(m, n, leaves[m], proof) == root


@pytest.mark.parametrize("n", [2, 5, 8, 13, 33])
def test_inclusion_proofs_that_must_fail_do(n: int) -> None:
    """Another leaf, another index, a changed, dropped or extra node: each is refused.
    (Another tree size is not: a root does not encode its size, which is why a signed
    tree head carries both.)"""
    d = data(n)
    leaves = [merkle.leaf_hash(x) for x in d]
    root = ref_mth(d)
    for m in range(n):
        proof = merkle.inclusion_proof(m, n, merkle.subtrees_of(leaves))
        other = leaves[(m + 1) % n]
        assert not merkle.verify_inclusion(m, n, other, proof, root)
        assert not merkle.verify_inclusion((m + 1) % n, n, leaves[m], proof, root)
        assert not merkle.verify_inclusion(m, n, leaves[m], proof[:-1], root)
        assert not merkle.verify_inclusion(m, n, leaves[m], [*proof, root], root)
        for i in range(len(proof)):
            bent = list(proof)
            bent[i] = hashlib.sha256(bent[i]).digest()
            assert not merkle.verify_inclusion(m, n, leaves[m], bent, root)
        assert not merkle.verify_inclusion(n, n, leaves[m], proof, root)


# --- consistency -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_consistency_proofs_equal_the_rfcs_proof_and_verify(n: int) -> None:
    """For every earlier size, the proof is the RFC's PROOF and it verifies."""
    d = data(n)
    leaves = [merkle.leaf_hash(x) for x in d]
    source = merkle.subtrees_of(leaves)
    new_root = ref_mth(d)
    for m in range(n + 1):
        proof = merkle.consistency_proof(m, n, source)
        assert proof == ref_proof(m, d)
        assert merkle.verify_consistency(m, n, ref_mth(d[:m]), new_root, proof)


@pytest.mark.parametrize("n", [3, 8, 9, 20, 33])
def test_consistency_proofs_that_must_fail_do(n: int) -> None:
    """A rewritten old leaf (a re-hashed history), a wrong old or new root, a changed
    node, an old size the proof was not made for: each is refused."""
    d = data(n)
    leaves = [merkle.leaf_hash(x) for x in d]
    source = merkle.subtrees_of(leaves)
    new_root = ref_mth(d)
    for m in range(1, n):
        proof = merkle.consistency_proof(m, n, source)
        old_root = ref_mth(d[:m])
        forged = list(d)
        forged[m - 1] = b"forged"
        assert not merkle.verify_consistency(m, n, old_root, ref_mth(forged), proof)
        assert not merkle.verify_consistency(m, n, ref_mth(forged[:m]), new_root, proof)
        assert not merkle.verify_consistency(m + 1, n, old_root, new_root, proof)
        for i in range(len(proof)):
            bent = list(proof)
            bent[i] = hashlib.sha256(bent[i]).digest()
            assert not merkle.verify_consistency(m, n, old_root, new_root, bent)
        assert not merkle.verify_consistency(m, n, old_root, new_root, [])


@given(st.integers(1, 300), st.data())
def test_any_prefix_is_consistent_and_any_leaf_included(n: int, draw: st.DataObject) -> None:
    """For any size, a random earlier size and a random leaf, the proofs verify against
    the reference roots."""
    d = data(n)
    leaves = [merkle.leaf_hash(x) for x in d]
    source = merkle.subtrees_of(leaves)
    m = draw.draw(st.integers(0, n))
    assert merkle.verify_consistency(
        m, n, ref_mth(d[:m]), ref_mth(d), merkle.consistency_proof(m, n, source)
    )
    i = draw.draw(st.integers(0, n - 1))
    assert ref_root_from_path(i, n, leaves[i], merkle.inclusion_proof(i, n, source)) == ref_mth(d)


def test_a_leaf_binds_the_event_its_place_and_its_seal() -> None:
    """Changing the event's hash, its stream, its version, its position or its seal
    (replaced, or stripped) changes the leaf."""
    base = {
        "stream": "BJ-01",
        "version": 7,
        "position": 1234,
        "event_hash": "a" * 64,
        "seal": "c" * 64,
    }
    leaf = merkle.event_leaf(**base)
    for key, value in (
        ("stream", "BJ-02"),
        ("version", 8),
        ("position", 1235),
        ("event_hash", "b" * 64),
        ("seal", "d" * 64),
        ("seal", None),
    ):
        assert merkle.event_leaf(**{**base, key: value}) != leaf


def test_the_leaf_formats_hash_the_bytes_the_format_names() -> None:
    """Format 2 (the current one): the canonical JSON with the seal; format 1 (heads signed
    before): without it, whatever seal is given - each against the bytes written by hand."""
    base = {
        "stream": "BJ-01",
        "version": 7,
        "position": 1234,
        "event_hash": "a" * 64,
        "seal": "c" * 64,
    }
    two = b'{"hash":"%s","position":1234,"seal":"%s","stream":"BJ-01","version":7}' % (
        b"a" * 64,
        b"c" * 64,
    )
    one = b'{"hash":"%s","position":1234,"stream":"BJ-01","version":7}' % (b"a" * 64)
    assert merkle.LEAF_FORMAT == 2
    assert merkle.event_leaf(**base) == hashlib.sha256(b"\x00" + two).digest()
    assert merkle.event_leaf(**base, leaf_format=1) == hashlib.sha256(b"\x00" + one).digest()
    assert (
        merkle.event_leaf(**{**base, "seal": None}, leaf_format=1)
        == hashlib.sha256(b"\x00" + one).digest()
    )
    stripped = b'{"hash":"%s","position":1234,"seal":null,"stream":"BJ-01","version":7}' % (
        b"a" * 64
    )
    assert (
        merkle.event_leaf(**{**base, "seal": None}) == hashlib.sha256(b"\x00" + stripped).digest()
    )
    with pytest.raises(ValueError, match="leaf format 3"):
        merkle.event_leaf(**base, leaf_format=3)


@given(
    st.text(min_size=1, max_size=20),
    st.integers(1, 2**53 - 1),
    st.integers(1, 2**53 - 1),
    st.sampled_from(["a" * 64, "0123456789abcdef" * 4, "not hex"]),
    st.sampled_from(["c" * 64, None, "ABCDEF" * 10 + "0123", "not hex"]),
    st.sampled_from([1, 2]),
)
def test_the_fast_leaf_is_the_canonical_one(
    stream: str, version: int, position: int, digest: str, seal: str | None, leaf_format: int
) -> None:
    """event_leaf's direct encoding equals hashing leaf_data's canonical JSON, in both formats."""
    given_ = {"version": version, "position": position, "seal": seal, "leaf_format": leaf_format}
    canonical = merkle.leaf_hash(merkle.leaf_data(stream=stream, event_hash=digest, **given_))
    assert merkle.event_leaf(stream=stream, event_hash=digest, **given_) == canonical
    plain = merkle.leaf_hash(merkle.leaf_data(stream="BJ-01.a_b", event_hash="f" * 64, **given_))
    assert merkle.event_leaf(stream="BJ-01.a_b", event_hash="f" * 64, **given_) == plain
