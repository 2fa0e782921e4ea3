"""The upgrade gate of seed 000's compute-node write path, with a real old member.

A second member joins the embedded berth's tooz group publishing RPC 1.6
(an old conductor); while it is there the write path is off.  Runs on every
engine (BERTH_TEST_DB=sqlite|postgresql|mysql).
"""

from oslo_upgradecheck import upgradecheck
import pytest
import sqlalchemy as sa

from cli import manage_status
from common import exception
from conductor import ring as conductor_ring
from conductor import rpcapi
from db import models
from objects.legacy import compute_node, compute_node_flows

OLD = 'old-conductor'
CAPACITY = {'vcpus': 8, 'memory_mb': 4096, 'local_gb': 40}


def _settle(berth):
    for ring in [berth.conductor_api.ring] + [c.ring for c in berth.conductors]:
        ring.refresh()
    berth.conductor_api.gate.forget()
    for c in berth.conductors:
        c.manager.compute_nodes.gate.forget()


@pytest.fixture
def old_member(berth, conf):
    """An old conductor in the ring (a member only: it serves no RPC)."""
    ring = conductor_ring.Ring(conf, host=OLD).start()
    ring.join({'host': OLD, 'rpc_api_version': '1.6'})
    _settle(berth)
    assert OLD in berth.conductor_api.ring.members()
    yield ring
    ring.stop()
    _settle(berth)


def _host_owned_by(ring, owner):
    for i in range(500):
        host = 'cmp%d' % i
        if ring.owner('compute-node/%s/%s' % (host, host)) == owner:
            return host
    raise AssertionError('no host routed to %s' % owner)


def _rows(ctx, host):
    table = models.ComputeNode.__table__
    with ctx.db.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)
                            .where(table.c.host == host)).scalar()


def _provider_named(client, name):
    return client.get('/resource_providers?name=%s' % name).json()['resource_providers']


def test_closed_gate_creates_a_legacy_row_only(berth, ctx, client, old_member):
    host = _host_owned_by(berth.conductor_api.ring, berth.conductors[0].host)
    answer = berth.conductor_api.update_compute_node(ctx, host, CAPACITY)
    assert not answer['migrated'] and answer['vcpus'] == 8 and _rows(ctx, host) == 1
    assert _provider_named(client, host) == []


def test_closed_gate_saves_the_row_then_an_open_gate_migrates(berth, ctx, client,
                                                              old_member):
    api = berth.conductor_api
    host = _host_owned_by(api.ring, berth.conductors[0].host)
    api.update_compute_node(ctx, host, CAPACITY)
    answer = api.update_compute_node(ctx, host, dict(CAPACITY, vcpus=12))
    assert not answer['migrated'] and answer['vcpus'] == 12
    assert _provider_named(client, host) == []
    # the old conductor is upgraded (leaves; its successor would publish 1.7)
    old_member.stop()
    _settle(berth)
    assert api.gate.state().open
    answer = api.update_compute_node(ctx, host, dict(CAPACITY, vcpus=16))
    assert answer['migrated'] and answer['vcpus'] == 16
    [provider] = _provider_named(client, host)
    invs = client.get('/resource_providers/%s/inventories' % provider['uuid']).json()
    assert invs['inventories']['VCPU']['total'] == 16
    assert compute_node.get_by_uuid(ctx, provider['uuid']).migrated


def test_closed_gate_read_does_not_migrate(berth, ctx, client, old_member):
    node = compute_node.create(ctx, host='h1', hypervisor_hostname='h1', **CAPACITY)
    gate_open = berth.conductors[0].manager.compute_nodes.gate.state().open
    assert not gate_open
    assert not compute_node_flows.read(ctx, node.id, None).migrated
    assert _provider_named(client, 'h1') == []


def test_report_to_an_old_owner_is_refused_and_writes_nothing(berth, ctx, old_member):
    host = _host_owned_by(berth.conductor_api.ring, OLD)
    with pytest.raises(exception.ServiceUnavailable) as err:
        berth.conductor_api.update_compute_node(ctx, host, CAPACITY)
    assert 'conductor %s speaks 1.6' % OLD in str(err.value)
    assert _rows(ctx, host) == 0


def test_status_names_the_old_conductor(berth, conf, old_member):
    checks = manage_status.Checks(conf)
    try:
        result = checks._check_compute_gate()
    finally:
        checks.close()
    assert result.code == upgradecheck.Code.WARNING
    assert '%s (1.6)' % OLD in result.details


def test_status_with_every_conductor_new(berth, conf):
    checks = manage_status.Checks(conf)
    try:
        result = checks._check_compute_gate()
    finally:
        checks.close()
    assert result.code == upgradecheck.Code.SUCCESS


def test_client_capped_below_1_7_refuses_and_writes_nothing(berth, conf, ctx):
    conf.set_override('conductor', '1.6', group='upgrade_levels')
    try:
        api = rpcapi.ConductorAPI(conf, berth.transport, berth.conductor_api.ring)
    finally:
        conf.clear_override('conductor', group='upgrade_levels')
    with pytest.raises(exception.ServiceUnavailable) as err:
        api.update_compute_node(ctx, 'capped', CAPACITY)
    assert 'needs conductor RPC API 1.7' in str(err.value)
    assert _rows(ctx, 'capped') == 0
