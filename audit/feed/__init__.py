"""The global feed and what follows it: the subscribers and their cursors, the fan-out
of per-table work over processes, the one runner of the tables' read models, and the
read models people act on, checked against their events."""
