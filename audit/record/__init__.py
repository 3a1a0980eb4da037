"""The record core: what an event is, how it is encoded, chained and checked.

Pure Python (msgspec, the standard library; no Django), so that the rules engine, the
ledger's fold, offline replay and a regulator's auditor can use it without a database.
Everything above it - the store, the API, the admin - is a Django shell around it.

- :mod:`.events` - the catalogue: every event type, its payload schema per version,
  upcasters;
- :mod:`.chain` - canonical JSON (RFC 8785) and the SHA-256 chain.
"""
