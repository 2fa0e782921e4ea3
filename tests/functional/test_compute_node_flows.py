"""Seed 000's compute-node object end to end: create, save, read-migrate.

Runs on every engine (BERTH_TEST_DB=sqlite|postgresql|mysql).  The embedded
conductor publishes RPC 1.7, so the upgrade gate is open here; the closed
gate is tests/functional/test_compute_node_gate.py.
"""

import json
import threading

import pytest
import sqlalchemy as sa

from common import exception
from db import models
from objects.legacy import compute_node, compute_node_flows, inventory_rules
from tests.functional import alloc_helpers

RULES = inventory_rules.Rules()
UUID = '3c1e0a55-8d6f-4d0e-9f7e-2a1b3c4d5e6f'
NUMA = json.dumps({'cells': [
    {'id': 0, 'cpuset': [0, 1], 'pcpuset': [2, 3], 'memory': 2048,
     'siblings': [[0, 2], [1, 3]], 'socket': 0},
    {'id': 1, 'cpuset': [4, 5], 'pcpuset': [6, 7], 'memory': 4096,
     'siblings': [[4, 6], [5, 7]], 'socket': 1}]})
PCI = json.dumps([{'count': 8, 'tags': {'dev_type': 'type-VF'}},
                  {'count': 2, 'tags': {'dev_type': 'type-PF'}},
                  {'count': 1, 'tags': {'dev_type': 'type-PCI'}}])
CAPACITY = {'vcpus': 16, 'memory_mb': 8192, 'local_gb': 100, 'cpu_allocation_ratio': 4.0,
            'ram_allocation_ratio': 1.0, 'disk_allocation_ratio': 1.0}


def _rows(ctx):
    with ctx.db.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(
            models.ComputeNode.__table__)).scalar()


def _inventories(client, uuid):
    resp = client.get('/resource_providers/%s/inventories' % uuid)
    assert resp.status_code == 200, resp.text
    return resp.json()


def _ctx_copy(ctx):
    return ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db)


# --- create ---

def test_create_writes_row_provider_and_inventories_at_once(ctx, client):
    node = compute_node.create(ctx, RULES, host='cmp1', hypervisor_hostname='cmp1.example',
                               numa_topology=NUMA, pci_stats=PCI, **CAPACITY)
    assert node.migrated and node.uuid
    invs = _inventories(client, node.uuid)['inventories']
    got = {rc: (i['total'], i['min_unit'], i['max_unit']) for rc, i in invs.items()}
    assert got == {
        'VCPU': (16, 1, 16), 'MEMORY_MB': (8192, 1, 8192), 'DISK_GB': (100, 1, 100),
        'NUMA_SOCKET': (2, 1, 1), 'NUMA_CORE': (4, 1, 2), 'NUMA_THREAD': (8, 1, 4),
        'NUMA_MEMORY_MB': (6144, 1, 4096), 'SRIOV_NET_VF': (8, 1, 8),
        'CUSTOM_SRIOV_NET_PF': (2, 1, 2), 'PCI_DEVICE': (1, 1, 1)}
    rp = client.get('/resource_providers/%s' % node.uuid).json()
    assert rp['name'] == 'cmp1.example'


def test_create_with_impossible_values_leaves_nothing(ctx, client):
    before = _rows(ctx)
    with pytest.raises(inventory_rules.BadComputeNode):
        compute_node.create(ctx, RULES, host='cmp1', hypervisor_hostname='cmp1',
                            uuid=UUID, **dict(CAPACITY, vcpus=-2))
    assert _rows(ctx) == before
    assert client.get('/resource_providers/%s' % UUID).status_code == 404


def test_create_whose_provider_fails_rolls_the_row_back(ctx, client):
    """One transaction: a provider name already taken leaves no row behind."""
    resp = client.post('/resource_providers', json={'name': 'taken.example'})
    assert resp.status_code in (200, 201), resp.text
    before = _rows(ctx)
    with pytest.raises(exception.BerthException):
        compute_node.create(ctx, RULES, host='cmp1', hypervisor_hostname='taken.example',
                            **CAPACITY)
    assert _rows(ctx) == before


def test_report_creates_the_node_over_rpc(berth, ctx, client):
    answer = berth.conductor_api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, uuid=UUID))
    assert answer['migrated'] and answer['uuid'] == UUID and answer['vcpus'] == 16
    assert _inventories(client, UUID)['inventories']['VCPU']['total'] == 16


@pytest.mark.parametrize('capacity,text', [
    ({'vcpus': 4, 'colour': 'red'}, 'not a reportable compute node field: colour'),
    ({'vcpus': -4}, 'vcpus is negative'),
    ({'numa_topology': '{"cells": ['}, 'numa_topology is not valid JSON'),
    ({'vcpus': '8'}, 'vcpus is not an integer'),
    ({'hypervisor_hostname': 7}, 'hypervisor_hostname must be a non-empty string'),
    ({'hypervisor_hostname': 'x' * 201}, 'longer than 200'),
    ({'uuid': 'nope'}, "uuid 'nope' is not a UUID"),
    ([1, 2], 'capacity must be an object'),
])
def test_report_of_bad_capacity_is_invalid_and_writes_nothing(berth, ctx, capacity, text):
    before = _rows(ctx)
    with pytest.raises(exception.Invalid) as err:
        berth.conductor_api.update_compute_node(ctx, 'cmp-bad', capacity)
    assert text in str(err.value)
    assert _rows(ctx) == before


@pytest.mark.parametrize('host', ['', 7, 'h' * 256])
def test_report_of_a_bad_host_is_invalid(berth, ctx, host):
    with pytest.raises(exception.Invalid) as err:
        berth.conductor_api.update_compute_node(ctx, host, {'uuid': UUID, 'vcpus': 1})
    assert 'host must be a non-empty string' in str(err.value)


def test_report_cannot_change_a_nodes_uuid(berth, ctx):
    api = berth.conductor_api
    api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, uuid=UUID))
    other = '5d1e0a55-8d6f-4d0e-9f7e-2a1b3c4d5e6f'
    with pytest.raises(exception.Invalid) as err:
        api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, uuid=other))
    assert 'a uuid cannot change' in str(err.value)
    assert compute_node.get_by_uuid(ctx, UUID).host == 'cmp1'


# --- save ---

def test_report_saves_changed_capacity_into_inventories(berth, ctx, client):
    api = berth.conductor_api
    api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, uuid=UUID))
    gen = _inventories(client, UUID)['resource_provider_generation']
    same = api.update_compute_node(ctx, 'cmp1', CAPACITY)      # nothing changed
    assert same['provider_generation'] == gen
    answer = api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, vcpus=32, pci_stats=PCI))
    assert answer['vcpus'] == 32 and answer['provider_generation'] > gen
    invs = _inventories(client, UUID)['inventories']
    assert invs['VCPU']['total'] == 32 and invs['SRIOV_NET_VF']['total'] == 8
    assert compute_node.get_by_uuid(ctx, UUID).vcpus == 32


def test_report_removing_capacity_in_use_is_refused(berth, ctx, client):
    api = berth.conductor_api
    api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, uuid=UUID, pci_stats=PCI))
    resp = alloc_helpers.put(client, alloc_helpers.new_uuid(),
                             {UUID: {'SRIOV_NET_VF': 2, 'VCPU': 1}})
    assert resp.status_code == 204, resp.text
    with pytest.raises(exception.InventoryInUse):
        api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, pci_stats=None))
    invs = _inventories(client, UUID)['inventories']
    assert invs['SRIOV_NET_VF']['total'] == 8
    assert compute_node.get_by_uuid(ctx, UUID).pci_stats == PCI


def test_report_that_loses_the_generation_race_is_reapplied(berth, ctx, client,
                                                             monkeypatch):
    api = berth.conductor_api
    api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, uuid=UUID))
    real = compute_node.update_capacity
    raced = []

    def racing(c, node, rules, **changes):
        if not raced:      # someone else changes the provider after our read
            gen = _inventories(client, UUID)['resource_provider_generation']
            resp = client.put('/resource_providers/%s/inventories/MEMORY_MB' % UUID,
                              json={'resource_provider_generation': gen, 'total': 4096})
            assert resp.status_code == 200, resp.text
            raced.append(True)
        return real(c, node, rules, **changes)

    monkeypatch.setattr(compute_node, 'update_capacity', racing)
    answer = api.update_compute_node(ctx, 'cmp1', dict(CAPACITY, vcpus=24))
    assert raced and answer['vcpus'] == 24
    assert _inventories(client, UUID)['inventories']['VCPU']['total'] == 24


# --- read-migrate ---

def _legacy(ctx, uuid=UUID, host='old1'):
    node = compute_node.create(ctx, host=host, hypervisor_hostname=host + '.example',
                               uuid=uuid, numa_topology=NUMA, **CAPACITY)
    assert not node.migrated
    return node


def test_read_migrates_a_legacy_row_once(ctx, client):
    node = _legacy(ctx)
    assert client.get('/resource_providers/%s' % UUID).status_code == 404
    read = compute_node_flows.read(ctx, node.id, RULES)
    assert read.migrated and read.vcpus == 16
    invs = _inventories(client, UUID)
    assert invs['inventories']['NUMA_THREAD']['total'] == 8
    again = compute_node_flows.read(ctx, node.id, RULES)
    assert again.provider_generation == read.provider_generation
    assert compute_node_flows.migrate_once(ctx, node.id, RULES) == 'already'


def test_read_without_rules_migrates_nothing(ctx, client):
    node = _legacy(ctx)
    assert not compute_node_flows.read(ctx, node.id, None).migrated
    assert client.get('/resource_providers/%s' % UUID).status_code == 404


def test_read_of_an_unmigratable_row_answers_the_row(ctx, client):
    node = compute_node.create(ctx, host='h', hypervisor_hostname='h', uuid=UUID,
                               **dict(CAPACITY, vcpus=-1))
    read = compute_node_flows.read(ctx, node.id, RULES)
    assert not read.migrated and read.vcpus == -1
    assert client.get('/resource_providers/%s' % UUID).status_code == 404


def test_report_migrates_the_legacy_row_then_saves(berth, ctx, client):
    _legacy(ctx)
    answer = berth.conductor_api.update_compute_node(
        ctx, 'old1', dict(CAPACITY, hypervisor_hostname='old1.example', vcpus=20))
    assert answer['migrated'] and answer['uuid'] == UUID and answer['vcpus'] == 20
    assert _inventories(client, UUID)['inventories']['VCPU']['total'] == 20


@pytest.mark.parametrize('with_uuid', [True, False])
def test_two_concurrent_readers_migrate_once(ctx, client, with_uuid):
    node = _legacy(ctx, uuid=UUID if with_uuid else None)
    barrier = threading.Barrier(2)
    outcomes, errors = [], []

    def migrate():
        c = _ctx_copy(ctx)
        barrier.wait()
        try:
            outcomes.append(compute_node_flows.migrate_once(c, node.id, RULES))
        except Exception as exc:   # the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=migrate) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(outcomes) == ['already', 'migrated']
    migrated = compute_node.get_by_id(ctx, node.id)
    assert migrated.migrated
    providers = client.get('/resource_providers?name=old1.example').json()
    assert [p['uuid'] for p in providers['resource_providers']] == [migrated.uuid]


def test_a_second_reader_waits_for_the_first_readers_row_lock(ctx, client, monkeypatch):
    """A forced interleaving: the first reader holds the row (SELECT ... FOR
    UPDATE) and pauses inside its migration; the second must not start one.

    It blocks on the row until the first commits, then finds the provider:
    one migration, 'migrated' and 'already'.  Mutation this catches (issue
    39): the locking read without ``with_for_update()`` -- on PostgreSQL and
    MariaDB the second reader then enters the migration while the first is
    paused in it.  SQLite serialises writers, so there it holds either way.
    The 10 s bound only lets a lock-less second reader reach the migration;
    with the lock it is waited out in full and the test passes.
    """
    node = _legacy(ctx)
    real = compute_node_flows.migration.migrate_row
    paused, release, second = threading.Event(), threading.Event(), threading.Event()
    entries = []

    def migrate_row(c, legacy, rules):
        entries.append(threading.current_thread().name)
        if len(entries) == 1:
            paused.set()
            assert release.wait(120)
        else:
            second.set()
        return real(c, legacy, rules)

    monkeypatch.setattr(compute_node_flows.migration, 'migrate_row', migrate_row)
    outcomes, errors = {}, []

    def migrate(name):
        try:
            outcomes[name] = compute_node_flows.migrate_once(_ctx_copy(ctx), node.id, RULES)
        except Exception as exc:   # the assertion below shows it
            errors.append(exc)

    first = threading.Thread(target=migrate, args=('first',), name='first', daemon=True)
    first.start()
    assert paused.wait(60), 'the first reader never reached its migration'
    later = threading.Thread(target=migrate, args=('second',), name='second', daemon=True)
    later.start()
    overlapped = second.wait(10)
    release.set()
    first.join(60)
    later.join(60)
    assert not first.is_alive() and not later.is_alive()
    assert not overlapped, 'the second reader migrated while the first held the row'
    assert errors == [] and outcomes == {'first': 'migrated', 'second': 'already'}
    assert entries == ['first']
    assert len(client.get('/resource_providers').json()['resource_providers']) == 1


def test_two_concurrent_reads_both_see_one_migration(ctx, client):
    node = _legacy(ctx)
    barrier = threading.Barrier(2)
    seen = []

    def read():
        c = _ctx_copy(ctx)
        barrier.wait()
        seen.append(compute_node_flows.read(c, node.id, RULES))

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [n.migrated for n in seen] == [True, True]
    assert seen[0].provider_generation == seen[1].provider_generation
    assert len(client.get('/resource_providers').json()['resource_providers']) == 1


@pytest.mark.parametrize('host,capacity,text', [
    (7, {'vcpus': 1}, 'host must be a non-empty string'),
    ('  ', {'vcpus': 1}, 'host must be a non-empty string'),
    ('h', [1], 'capacity must be an object'),
    ('h', {'uuid': 'nope'}, "uuid 'nope' is not a UUID"),
])
def test_conductor_refuses_bad_reports_from_any_client(berth, ctx, host, capacity, text):
    """What another client may send without the published client's checks."""
    with pytest.raises(exception.Invalid) as err:
        berth.conductors[0].manager.compute_nodes.update(ctx, None, host, capacity)
    assert text in str(err.value)
