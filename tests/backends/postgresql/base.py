from django.db.backends.postgresql import base, operations

from audit import immutability


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        sql = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        if immutability.TABLE not in tables:
            return sql
        # The triggers fire always (replica mode too): switch them off around the flush,
        # inside its own transaction, as only the table's owner or a superuser can.
        return [
            f"ALTER TABLE {immutability.TABLE} DISABLE TRIGGER USER",
            *sql,
            *immutability.statements(immutability.ALWAYS, "postgresql"),
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
