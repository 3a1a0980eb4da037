"""The read models' subscriber of the global feed (``tables.projections``): for every
table whose stream a batch of new events touches, bring its projections and findings up
to date (:func:`tables.replay_service.replay_table`, incremental, going on from the
folds this process kept of those days: :data:`CACHE`). Registered in
:class:`tables.apps.TablesConfig`; the runner is audit's (:class:`audit.feed.readmodels.ReadModel`),
so are the feed (:mod:`audit.feed.subscribers`) and what a table that keeps failing comes to
(:func:`audit.feed.subscribers.each_table`).
"""

from __future__ import annotations

from audit.feed.readmodels import FoldCache, ReadModel

from . import replay_service
from .fold import KeptDay

NAME = "tables.projections"


def project(*, stream: str, cache: FoldCache[KeptDay]) -> object:
    return replay_service.replay_table(stream=stream, trigger="feed", cache=cache)


READ_MODEL: ReadModel[KeptDay] = ReadModel(NAME, project, what="projecting")
# this process's folds of the days it projected last, so that the next batch of a live
# table folds only its new events
CACHE = READ_MODEL.cache
SUBSCRIBER = READ_MODEL.subscriber
