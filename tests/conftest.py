"""Shared pytest fixtures (see tests/fixtures.py for the building blocks)."""

import pytest

from common import context as berth_context
from tests import fixtures


@pytest.fixture
def conf(tmp_path):
    return fixtures.make_conf(tmp_path / 'state')


@pytest.fixture
def berth(conf, tmp_path_factory, tmp_path):
    """A running embedded berth on a migrated SQLite file; stopped after the test."""
    fixtures.migrated_sqlite(tmp_path_factory.getbasetemp(), conf.state_path)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


@pytest.fixture
def client(berth):
    """An admin Placement client at the latest microversion."""
    c = fixtures.PlacementClient(berth.placement_url, version='latest')
    yield c
    c.close()


@pytest.fixture
def ctx(berth):
    """An admin request context bound to the running berth's database."""
    return berth_context.admin_context(berth.db)


@pytest.fixture
def bm(berth):
    """A bare-metal (/v1) client at the latest microversion."""
    c = fixtures.BaremetalClient(berth.baremetal_url, version='latest')
    yield c
    c.close()
