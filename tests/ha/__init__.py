"""The HA tier: clustered servers lose a member while berth serves (issue 21).

Every module here carries ``pytestmark = MARKS`` from ``tests/ha/conftest.py``;
``make test`` runs the tier in a pass of its own (``-m ha``).
"""
