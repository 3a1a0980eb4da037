"""The ledger's subscriber of the global feed (``ledger.books``): for every table whose
stream a batch of new events touches, bring the ledger's read models, its reconciliation
and their findings up to date (:func:`ledger.projection.project_table`, going on from
the folds this process kept: :data:`CACHE`). Registered in
:class:`ledger.apps.LedgerConfig`; the feed itself is audit's (:mod:`audit.subscribers`).

Streams under ``audit.`` are not tables and are skipped (a sign-off in ``audit.ledger``
reconciles its day itself: :mod:`ledger.signoff`). A table that fails does not stop the
others; the batch then fails as a whole, naming the tables, so the subscriber keeps its
position and the next run retries - the tables already done find nothing new - until a
table that keeps failing is set aside (:func:`audit.subscribers.each_table`).
"""
from __future__ import annotations

from audit.readmodels import FoldCache
from audit.subscribers import Batch, Subscriber, each_table

from .projection import project_table

NAME = "ledger.books"
CACHE = FoldCache(16)


def project_batch(batch: Batch) -> None:
    each_table(batch, lambda stream: project_table(stream=stream, cache=CACHE), what="the ledger's projection")


SUBSCRIBER = Subscriber(NAME, project_batch)
