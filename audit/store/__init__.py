"""The event store: appending and reading streams, the rows' seals and ids, the
protection of the table (append-only triggers, partitions, roles), the gaming day,
the store's errors, the JSON Lines export and the ingest of such a file."""
