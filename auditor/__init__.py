"""The regulator's offline auditor: reads, writes and checks the regulator's package.

Pure Python - the record core (:mod:`audit.record`), the rules engine
(:mod:`tables.engine`) and the ledger's books (:mod:`ledger.books`); no Django, no
database (``tests/test_pure.py`` imports it with Django blocked). It sits above the three
pure packages because it needs all of them: the chain verifier and the Merkle proofs of
the record, the engine's replay, the books' reconciliation.

- :mod:`.layout` - the package's format: its files, deterministic gzip and zip, reading
  a package from a folder or a ``.zip``;
- :mod:`.reports` - the reports recomputed from a stream's events (the exporter writes
  them, the auditor recomputes and compares them);
- :mod:`.check` - ``blackjack-audit verify``: every check, each disagreement named;
- :mod:`.recall` - ``blackjack-audit round``: one round's recall;
- :mod:`.cli` - the console script.
"""
