"""Helpers of the status page tests: providers, consumers and node allocations."""

from objects.baremetal import allocation as node_alloc_obj
from tests import fixtures
from tests.functional import alloc_helpers


def make_conf(tmp_path):
    """Two conductors, without orphan takeover or stale sweep.

    Rows of a departed conductor then stay ``allocating``, as they would for
    a while in production.
    """
    return fixtures.make_conf(tmp_path / 'state', **{
        'conductor.embedded_conductors': 2,
        'allocation.orphan_check_interval': 0, 'allocation.sweep_interval': 0})


def populate(client, ctx):
    """Two providers, three consumers, node allocations in every state."""
    rp1 = alloc_helpers.provider(client, ctx, {
        'VCPU': {'total': 8, 'allocation_ratio': 2.0},
        'MEMORY_MB': {'total': 2048, 'reserved': 512}})
    rp2 = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 4},
                                               'DISK_GB': {'total': 500}})
    big, small, mem = (alloc_helpers.new_uuid() for _ in range(3))
    for consumer, allocs, project in ((big, {rp1: {'VCPU': 6}}, 'proj-a'),
                                      (small, {rp2: {'VCPU': 1}}, 'proj-b'),
                                      (mem, {rp1: {'MEMORY_MB': 1500}}, 'proj-a')):
        resp = alloc_helpers.put(client, consumer, allocs, project=project)
        assert resp.status_code == 204, resp.text
    old = node_alloc_obj.create_row(ctx, {'conductor_affinity': 'departed-host',
                                      'resource_class': 'gold'})
    node_alloc_obj.create_row(ctx, {'conductor_affinity': 'departed-host',
                                'resource_class': 'gold'})
    node_alloc_obj.create_row(ctx, {'state': node_alloc_obj.ERROR, 'resource_class': 'gold',
                                'last_error': 'no node'})
    node_alloc_obj.create_row(ctx, {'state': node_alloc_obj.ACTIVE, 'resource_class': 'gold'})
    return {'big': big, 'small': small, 'mem': mem, 'oldest': old.uuid}
