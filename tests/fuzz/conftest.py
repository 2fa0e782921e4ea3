"""The fuzz tier's fixtures: a seeded embedded berth driven in process."""

import os

import pytest

from tests import fixtures
from tests.fuzz import harness as fuzz_harness
from tests.fuzz import world


def pytest_collection_modifyitems(items):
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.fuzz)


@pytest.fixture
def conf(tmp_path):
    """The embedded defaults, with no conductor heartbeat during a run: a beat
    writes the conductors table, and the harness checks that a refused
    request changed no table."""
    return fixtures.make_conf(tmp_path / 'state', **{'conductor.heartbeat_interval': 86400})


@pytest.fixture
def fuzz(berth):
    """A :class:`tests.fuzz.harness.Harness` over a seeded embedded berth."""
    h = fuzz_harness.Harness(berth)
    world.seed(h)
    h.count = 0
    h.statuses.clear()
    yield h
    h.close()
