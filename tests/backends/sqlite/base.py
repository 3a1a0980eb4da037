from django.db.backends.sqlite3 import base, operations

from audit.store import immutability


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        sql = super().sql_flush(
            style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
        if immutability.TABLE not in tables:
            return sql
        # SQLite cannot switch a trigger off: drop and re-create it around the flush,
        # inside the flush's own transaction.
        return (
            immutability.statements(immutability.REMOVE, "sqlite")
            + sql
            + immutability.statements(immutability.INSTALL, "sqlite")
        )


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
