"""Findings: what the checks found, kept in a table and handled by people (the
workflow), and their REST API."""
