"""The read models' subscriber of the global feed (``tables.projections``): for every
table whose stream a batch of new events touches, bring its projections and findings up
to date (:func:`tables.replay_service.replay_table`, incremental, going on from the
folds this process kept of those days: :data:`CACHE`). Registered in
:class:`tables.apps.TablesConfig`; the feed itself is audit's (:mod:`audit.subscribers`).

Streams under ``audit.`` (the back-office's own, such as ``audit.findings``) are not
tables and are skipped. A table that fails does not stop the others; the batch then
fails as a whole (naming the tables), so the subscriber keeps its position and the next
run retries - the tables already done find nothing new - until a table that keeps
failing is set aside (:func:`audit.subscribers.each_table`).
"""
from __future__ import annotations

from audit.readmodels import FoldCache
from audit.subscribers import Batch, Subscriber, each_table

from . import replay_service

NAME = "tables.projections"
# this process's folds of the days it projected last, so that the next batch of a
# live table folds only its new events (see audit.readmodels.FoldCache)
CACHE = FoldCache(16)


def project_batch(batch: Batch) -> None:
    each_table(batch, lambda stream: replay_service.replay_table(stream=stream, trigger="feed", cache=CACHE),
               what="projecting")


SUBSCRIBER = Subscriber(NAME, project_batch)
