"""bench/versus_placement.py: berth's side of the topology is loaded before Placement starts.

The loader moved to bench.placeload.load_state when bench's import circles
were broken; ``start`` kept calling the old name (an AttributeError before
anything ran) until mypy over bench/ named it.
"""

import argparse

import pytest
import sqlalchemy as sa

from bench import placeload, versus_placement
from db import models
from objects import database
from tests import placement_real


class _NoPlacement(Exception):
    """Placement's venv (a process edge) is never reached in a unit test."""


def test_start_loads_the_topology_into_berth(tmp_path, monkeypatch):
    def no_venv():
        raise _NoPlacement()

    monkeypatch.setattr(placement_real, 'require_venv', no_venv)
    args = argparse.Namespace(db='sqlite', computes=3)
    with pytest.raises(_NoPlacement):
        versus_placement.start(args, str(tmp_path))
    db = database.open_database(placeload.conf_for(str(tmp_path / 'berth')))
    try:
        with db.engine.connect() as conn:
            names = set(conn.execute(sa.select(models.ResourceProvider.name)).scalars())
    finally:
        db.dispose()
    assert {'compute-0', 'compute-1', 'compute-2'} <= names


def test_perfloads_query_asks_for_the_aggregate_on_every_third_compute():
    shapes = dict(versus_placement.SHAPES)
    assert shapes[versus_placement.PERFLOAD] == '&member_of=' + placeload.AGGS['C']
    assert 'limit' not in shapes[versus_placement.PERFLOAD]
