"""/v1/allocations writes: the exact messages they put on the bus.

Each REST write of a node allocation (create, backfill, PATCH, DELETE) goes
through the published RPC client (conductor.rpcapi) to a conductor.  These
pin, byte for byte (JSON, as the broker carries it), the method, version
and keyword arguments each request becomes, so the way a write is carried
inside berth (issue 53: one typed contract from handler to row) cannot
change what an older conductor reads.  The broker is the process edge:
the client's ``prepare`` is replaced by a recorder; everything above it
(handler, policy, database, routing) is real.
"""

import json
from unittest import mock

import pytest
import sqlalchemy as sa
import webob

from api.baremetal import app as baremetal_app
from common import rpc
from common.conf import builder
from conductor import rpcapi
from db import models
from objects import database

NODE = '11111111-1111-4111-8111-111111111111'
ALLOC = '22222222-2222-4222-8222-222222222222'
PROJECT = '33333333-3333-4333-8333-333333333333'


class Ring:
    def owner(self, key):
        return 'owner-of-%s' % key

    def is_alive(self, host):
        return host.startswith('owner-of-')

    def members(self):
        return frozenset()


class Wire:
    """What reaches the broker: one JSON line per message, and what it answers."""

    def __init__(self):
        self.sent = []
        self.answers = {}

    def prepare(self, server=None, version=None, timeout=None):
        wire = self

        class Prepared:
            def _send(self, kind, method, kwargs):
                wire.sent.append(json.dumps({'kind': kind, 'server': server,
                                             'version': version, 'method': method,
                                             'args': kwargs}))
                return wire.answers.get(method)

            def call(self, ctx, method, **kwargs):
                return self._send('call', method, kwargs)

            def cast(self, ctx, method, **kwargs):
                self._send('cast', method, kwargs)
        return Prepared()


@pytest.fixture
def baremetal(tmp_path):
    conf = builder.build(config_files=[], overrides={
        'state_path': str(tmp_path), 'api.auth_strategy': 'noauth2',
        'conductor.allocation_routing': 'allocation',
        # one attempt, no call id: the message as every version sends it
        'conductor.rpc_attempt_timeout': 0})
    db = database.open_database(conf)
    database.upgrade(db)
    transport = rpc.get_transport(conf, url=rpc.EMBEDDED_TRANSPORT_URL)
    client = rpcapi.ConductorAPI(conf, transport, Ring())
    wire = Wire()
    app = baremetal_app.loadapp(conf, db, client)

    def send(method, path, body=None, status=None, headers=None):
        req = webob.Request.blank(path, method=method, headers=dict({
            'X-Auth-Token': 'admin', 'X-OpenStack-Ironic-API-Version': '1.60',
            'Content-Type': 'application/json'}, **(headers or {})))
        if body is not None:
            req.body = json.dumps(body).encode()
        with mock.patch.object(client.client, 'prepare', wire.prepare):
            resp = req.get_response(app)
        if status is not None:
            assert resp.status_int == status, resp.text
        return resp

    send.wire = wire
    send.db = db
    yield send
    transport.cleanup()
    db.dispose()


def _one(send):
    assert len(send.wire.sent) == 1, send.wire.sent
    return send.wire.sent.pop()


def _node(send, **fields):
    body = dict({'driver': 'fake-hardware', 'uuid': NODE, 'name': 'n1',
                 'resource_class': 'gold'}, **fields)
    send('POST', '/v1/nodes', body, status=201)
    assert not send.wire.sent


def _allocation(send):
    send('POST', '/v1/allocations', {'uuid': ALLOC, 'name': 'web-1',
                                     'resource_class': 'gold', 'extra': {'a': 1}},
         status=201)
    send.wire.sent.clear()


def test_create_casts_the_row_id_to_the_owner_of_its_uuid(baremetal):
    baremetal('POST', '/v1/allocations', {
        'uuid': ALLOC, 'name': 'web-1', 'resource_class': 'gold',
        'traits': ['CUSTOM_GPU'], 'candidate_nodes': [], 'extra': {'k': 'v'},
        'owner': PROJECT}, status=201)
    assert _one(baremetal) == (
        '{"kind": "cast", "server": "owner-of-%s", "version": "1.1", '
        '"method": "create_allocation", "args": {"allocation_id": 1}}' % ALLOC)


def test_create_with_a_wait_calls_with_the_wait(baremetal):
    baremetal('POST', '/v1/allocations', {'uuid': ALLOC, 'resource_class': 'gold'},
              headers={'Berth-Allocation-Wait': '3'}, status=201)
    sent = json.loads(_one(baremetal))
    assert sent['method'] in ('create_allocation', 'create_allocations')
    assert sent['kind'] == 'call'
    assert sent['args'] in ({'wait': 3.0, 'allocation_id': 1},
                            {'wait': 3.0, 'allocation_ids': [1]})


def test_backfill_sends_the_values_and_the_node_uuid(baremetal):
    _node(baremetal)
    baremetal.wire.answers['backfill_allocation'] = {'uuid': ALLOC, 'error': 'no fit'}
    resp = baremetal('POST', '/v1/allocations', {
        'name': 'web-1', 'resource_class': 'gold', 'traits': ['CUSTOM_GPU'],
        'candidate_nodes': [NODE], 'extra': {'k': 'v'}, 'owner': PROJECT,
        'uuid': ALLOC, 'node': 'n1'}, status=400)
    assert 'no fit' in resp.text
    assert _one(baremetal) == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.6", '
        '"method": "backfill_allocation", "args": {"values": {"name": "web-1", '
        '"resource_class": "gold", "traits": ["CUSTOM_GPU"], "candidate_nodes": ["%s"], '
        '"extra": {"k": "v"}, "owner": "%s", "uuid": "%s"}, "node": "%s"}}'
        % (ALLOC, NODE, PROJECT, ALLOC, NODE))


def test_backfill_without_uuid_sends_the_new_one_last(baremetal):
    _node(baremetal)
    baremetal('PATCH', '/v1/nodes/n1', [{'op': 'add', 'path': '/instance_uuid',
                                         'value': ALLOC}], status=200)
    assert not baremetal.wire.sent
    baremetal.wire.answers['backfill_allocation'] = {'uuid': ALLOC, 'error': 'no fit'}
    baremetal('POST', '/v1/allocations', {'node': NODE}, status=400)
    assert _one(baremetal) == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.6", '
        '"method": "backfill_allocation", "args": {"values": {"uuid": "%s"}, '
        '"node": "%s"}}' % (ALLOC, ALLOC, NODE))


def test_patch_sends_name_and_whole_extra(baremetal):
    _allocation(baremetal)
    baremetal('PATCH', '/v1/allocations/web-1', [
        {'op': 'replace', 'path': '/name', 'value': 'web-2'},
        {'op': 'add', 'path': '/extra/b', 'value': [1, 2]}], status=200)
    assert _one(baremetal) == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.6", '
        '"method": "update_allocation", "args": {"allocation": "%s", '
        '"values": {"name": "web-2", "extra": {"a": 1, "b": [1, 2]}}}}' % (ALLOC, ALLOC))


def test_patch_removing_name_and_extra_sends_none_and_empty(baremetal):
    _allocation(baremetal)
    baremetal('PATCH', '/v1/allocations/%s' % ALLOC, [
        {'op': 'remove', 'path': '/name'}, {'op': 'remove', 'path': '/extra'}],
        status=200)
    assert _one(baremetal) == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.6", '
        '"method": "update_allocation", "args": {"allocation": "%s", '
        '"values": {"name": null, "extra": {}}}}' % (ALLOC, ALLOC))


def test_delete_sends_the_uuid_to_its_conductor(baremetal):
    _allocation(baremetal)
    baremetal('DELETE', '/v1/allocations/web-1', status=204)
    assert _one(baremetal) == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.1", '
        '"method": "destroy_allocation", "args": {"allocation_uuid": "%s"}}'
        % (ALLOC, ALLOC))


def _held_node(send):
    """Node n1 held by allocation ALLOC (its conductor alive), in maintenance."""
    _node(send)
    send('PUT', '/v1/nodes/n1/maintenance', {'reason': 'r'}, status=202)
    _allocation(send)
    with send.db.engine.begin() as conn:     # the reservation, as a conductor writes it
        alloc_id = conn.execute(sa.select(models.NodeAllocation.id)).scalar_one()
        conn.execute(models.Node.__table__.update().values(allocation_id=alloc_id,
                                                           instance_uuid=ALLOC))
        conn.execute(models.NodeAllocation.__table__.update().values(
            node_id=sa.select(models.Node.id).scalar_subquery(), state='active'))
    assert not send.wire.sent


def test_node_patch_removing_the_instance_sends_the_changed_fields(baremetal):
    """In the order the patch left them (a removed field last)."""
    _held_node(baremetal)
    baremetal('PATCH', '/v1/nodes/n1', [
        {'op': 'remove', 'path': '/instance_uuid'},
        {'op': 'add', 'path': '/extra/k', 'value': 'v'},
        {'op': 'replace', 'path': '/description', 'value': 'spare'},
        {'op': 'add', 'path': '/instance_info', 'value': {'image': 'x'}},
        {'op': 'replace', 'path': '/name', 'value': 'n2'}], status=200)
    assert _one(baremetal) == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.6", '
        '"method": "update_node", "args": {"node": "%s", "values": {"name": "n2", '
        '"instance_info": {"image": "x"}, "extra": {"k": "v"}, "description": "spare", '
        '"instance_uuid": null}}}' % (ALLOC, NODE))


def test_node_delete_and_undeploy_of_a_held_node_send_the_node(baremetal):
    _held_node(baremetal)
    baremetal('PUT', '/v1/nodes/n1/states/provision', {'target': 'deleted'})
    baremetal('DELETE', '/v1/nodes/n1', status=204)
    assert baremetal.wire.sent[-1] == (
        '{"kind": "call", "server": "owner-of-%s", "version": "1.6", '
        '"method": "destroy_node", "args": {"node": "%s"}}' % (ALLOC, NODE))
