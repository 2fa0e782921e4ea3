"""The ComputeNode object: capacity read from and written to where it lives."""

import threading

import pytest

from common import exception
from objects.legacy import compute_node, compute_node_migration, inventory_rules

UUID = '6a1f7d1e-6d3c-4c3e-9b0f-0c9a3f1e2d4b'
RULES = inventory_rules.Rules()


def _make(ctx, **kw):
    values = dict(uuid=UUID, host='cmp1', hypervisor_hostname='cmp1.example', vcpus=16,
                  memory_mb=8192, local_gb=100, cpu_allocation_ratio=4.0,
                  ram_allocation_ratio=1.0, disk_allocation_ratio=1.0)
    values.update(kw)
    return compute_node.create(ctx, **values)


def _migrate(ctx, conf):
    found, done, failed, _ = compute_node_migration.migrate_batch(ctx, conf, 100)
    assert failed == []
    return done


def test_unmigrated_node_reads_and_writes_its_columns(ctx):
    node = _make(ctx)
    assert not node.migrated and node.vcpus == 16
    node = compute_node.update_capacity(ctx, node, RULES, vcpus=24)
    assert compute_node.get_by_id(ctx, node.id).vcpus == 24


def test_unmigrated_stale_write_is_refused(ctx):
    node = _make(ctx)
    compute_node.update_capacity(ctx, node, RULES, vcpus=24)
    with pytest.raises(exception.ConcurrentUpdate):
        compute_node.update_capacity(ctx, node, RULES, vcpus=32)
    assert compute_node.get_by_id(ctx, node.id).vcpus == 24


def test_write_after_the_row_was_migrated_is_refused(ctx, conf):
    node = _make(ctx)
    assert _migrate(ctx, conf) == 1
    with pytest.raises(exception.ConcurrentUpdate):
        compute_node.update_capacity(ctx, node, RULES, vcpus=32)
    assert compute_node.get_by_id(ctx, node.id).vcpus == 16


def test_migrated_node_reads_capacity_from_inventories(ctx, conf, client):
    node = _make(ctx)
    _migrate(ctx, conf)
    gen = client.get('/resource_providers/%s' % UUID).json()['generation']
    resp = client.put('/resource_providers/%s/inventories/VCPU' % UUID, json={
        'resource_provider_generation': gen, 'total': 40, 'max_unit': 40,
        'allocation_ratio': 2.0})
    assert resp.status_code == 200, resp.text
    node = compute_node.get_by_id(ctx, node.id)
    assert node.migrated and (node.vcpus, node.cpu_allocation_ratio) == (40, 2.0)
    assert compute_node.get_by_uuid(ctx, UUID).vcpus == 40


def test_migrated_node_writes_inventories_and_keeps_foreign_classes(ctx, conf, client):
    node = _make(ctx)
    _migrate(ctx, conf)
    assert client.put('/resource_classes/CUSTOM_MAGIC').status_code in (201, 204)
    gen = client.get('/resource_providers/%s' % UUID).json()['generation']
    assert client.post('/resource_providers/%s/inventories' % UUID, json={
        'resource_provider_generation': gen, 'resource_class': 'CUSTOM_MAGIC',
        'total': 3}).status_code == 201
    node = compute_node.get_by_id(ctx, node.id)
    node = compute_node.update_capacity(ctx, node, RULES, vcpus=32, memory_mb=4096)
    assert (node.vcpus, node.memory_mb) == (32, 4096)
    invs = client.get('/resource_providers/%s/inventories' % UUID).json()['inventories']
    assert invs['VCPU']['total'] == 32 and invs['VCPU']['max_unit'] == 32
    assert invs['MEMORY_MB']['total'] == 4096
    assert invs['CUSTOM_MAGIC']['total'] == 3


def test_migrated_stale_write_loses_the_generation_race(ctx, conf, client):
    node = _make(ctx)
    _migrate(ctx, conf)
    node = compute_node.get_by_id(ctx, node.id)
    gen = node.provider_generation
    assert client.put('/resource_providers/%s/inventories/VCPU' % UUID, json={
        'resource_provider_generation': gen, 'total': 20}).status_code == 200
    with pytest.raises(exception.ConcurrentUpdate):
        compute_node.update_capacity(ctx, node, RULES, vcpus=64)
    invs = client.get('/resource_providers/%s/inventories' % UUID).json()['inventories']
    assert invs['VCPU']['total'] == 20


def test_impossible_new_values_are_refused_and_change_nothing(ctx, conf):
    node = _make(ctx)
    with pytest.raises(inventory_rules.BadComputeNode):
        compute_node.update_capacity(ctx, node, RULES, vcpus=-1)
    with pytest.raises(exception.Invalid):
        compute_node.update_capacity(ctx, node, RULES, uuid='x')
    assert compute_node.get_by_id(ctx, node.id).vcpus == 16


def test_missing_node(ctx):
    with pytest.raises(exception.ComputeNodeNotFound):
        compute_node.get_by_id(ctx, 9999)
    with pytest.raises(exception.ComputeNodeNotFound):
        compute_node.get_by_uuid(ctx, UUID)


@pytest.mark.parametrize('migrated', [False, True])
def test_concurrent_writers_of_one_read_one_wins(ctx, conf, migrated):
    node = _make(ctx)
    if migrated:
        _migrate(ctx, conf)
        node = compute_node.get_by_id(ctx, node.id)
    barrier = threading.Barrier(4)
    outcomes = []

    def write(vcpus):
        barrier.wait()
        try:
            compute_node.update_capacity(ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db),
                                         node, RULES, vcpus=vcpus)
            outcomes.append(vcpus)
        except exception.ConcurrentUpdate:
            outcomes.append('conflict')

    threads = [threading.Thread(target=write, args=(v,)) for v in (20, 24, 28, 32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o != 'conflict']
    assert len(winners) == 1 and outcomes.count('conflict') == 3
    assert compute_node.get_by_id(ctx, node.id).vcpus == winners[0]
