"""The record's integrity: the chains verified over the stored rows, the whole check that
``manage.py verify`` runs, the signed tree heads and where they are published."""
