from django.db.backends.postgresql import base, operations

from audit.store import immutability, partitions


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        sql = super().sql_flush(
            style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
        if immutability.TABLE not in tables:
            return sql
        # The triggers fire always (replica mode too): switch them off around the flush,
        # inside its own transaction, as only the table's owner or a superuser can.
        # Partitioned (audit.store.partitions): each partition's TRUNCATE trigger and the key
        # table's too, and the key table emptied with the events.
        return [*partitions.flush_sql(), *sql, *partitions.protections_always_sql()]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
