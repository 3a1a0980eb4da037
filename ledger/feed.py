"""The ledger's subscriber of the global feed (``ledger.books``): for every table whose
stream a batch of new events touches, bring the ledger's read models, its reconciliation
and their findings up to date (:func:`ledger.projection.project_table`, going on from
the folds this process kept: :data:`CACHE`). Registered in
:class:`ledger.apps.LedgerConfig`; the runner is audit's (:class:`audit.feed.readmodels.ReadModel`),
so are the feed (:mod:`audit.feed.subscribers`) and what a table that keeps failing comes to
(:func:`audit.feed.subscribers.each_table`). A sign-off in ``audit.ledger`` (not a table)
reconciles its day itself: :mod:`ledger.signoff`.
"""

from __future__ import annotations

from audit.feed.readmodels import FoldCache, ReadModel

from .projection import KeptBooks, project_table

NAME = "ledger.books"


def project(*, stream: str, cache: FoldCache[KeptBooks]) -> object:
    return project_table(stream=stream, cache=cache)


READ_MODEL: ReadModel[KeptBooks] = ReadModel(NAME, project, what="the ledger's projection")
CACHE = READ_MODEL.cache
SUBSCRIBER = READ_MODEL.subscriber
