"""Recovery metrics: orphan takeovers and stale re-drives, counted per conductor."""

import pytest

from common import metrics
from conductor.periodic import node_allocations as periodic
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import alloc_helpers, status_helpers
from tests.functional import metrics_helpers as mh


@pytest.fixture
def conf(tmp_path):
    # the embedded conductors' own takeover and sweep stay off: no race here
    return status_helpers.make_conf(tmp_path)


class _Allocator:
    """A conductor's allocator that only records what it was asked to drive."""

    def __init__(self, host):
        self.host = host
        self.driven = []

    def allocate(self, ctx, alloc_id):
        self.driven.append(alloc_id)


class _Ring:
    def __init__(self, host):
        self.host = host

    def members(self):
        return frozenset([self.host])

    def owner(self, key):
        return self.host


def test_orphan_takeovers_and_stale_redrives_are_counted(ctx):
    def count(name, host):
        return mh.value(metrics.exposition()[0].decode(), name, conductor=host)

    me = 'metrics-' + alloc_helpers.new_uuid()[:8]
    orphan = node_alloc_obj.create_row(ctx, {'conductor_affinity': 'departed-host'})
    mine = node_alloc_obj.create_row(ctx, {'conductor_affinity': me})
    allocator = _Allocator(me)
    assert periodic.take_over_orphans(ctx, allocator, _Ring(me)) == 1
    assert allocator.driven == [orphan.id]
    assert count('berth_orphan_takeovers_total', me) == 1
    # timeout 0: both rows, now ours, are already stale
    assert periodic.sweep_stale(ctx, allocator, timeout=0) == 2
    assert sorted(allocator.driven[1:]) == sorted([orphan.id, mine.id])
    assert count('berth_stale_allocations_redriven_total', me) == 2
