"""POST /reshaper: the reshape as it goes on the bus.

The handler builds one typed ReshapeBody; the RPC client sends its
primitive as the ``inventories`` and ``consumers`` arguments of ``reshape``.
These pin those bytes (issue 53: one typed contract per write), the
inventories as the client wrote them: only the fields it gave, in its order,
numbers as it wrote them.  The conductor is the process edge: a recorder
stands in for the RPC client.
"""

import json

import pytest
import webob

from api.placement import app as placement_app
from common.conf import builder
from objects import database

CONSUMER = '11111111-1111-4111-8111-111111111111'
RP_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
RP_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
PROJECT = '33333333-3333-4333-8333-333333333333'
USER = '44444444-4444-4444-8444-444444444444'


class RecordingConductor:
    def __init__(self):
        self.sent = []

    def reshape(self, ctx, body):
        self.sent.append(json.dumps(body.to_primitive()))


@pytest.fixture
def reshaper(tmp_path):
    conf = builder.build(config_files=[], overrides={
        'state_path': str(tmp_path), 'api.auth_strategy': 'noauth2'})
    db = database.open_database(conf)
    conductor = RecordingConductor()
    app = placement_app.loadapp(conf, db, conductor)

    def send(body, version='1.38'):
        req = webob.Request.blank('/reshaper', method='POST', headers={
            'X-Auth-Token': 'admin', 'X-Roles': 'admin,service',
            'OpenStack-API-Version': 'placement %s' % version,
            'Content-Type': 'application/json'})
        req.body = json.dumps(body).encode()
        resp = req.get_response(app)
        assert resp.status_int == 204, resp.text
        assert len(conductor.sent) == 1
        return conductor.sent.pop()

    yield send
    db.dispose()


def test_inventories_go_as_the_client_wrote_them(reshaper):
    body = {
        'inventories': {
            RP_B: {'inventories': {'DISK_GB': {'total': 100, 'allocation_ratio': 1,
                                               'reserved': 5}},
                   'resource_provider_generation': 3},
            RP_A: {'resource_provider_generation': 0, 'inventories': {
                'VCPU': {'total': 8, 'max_unit': 4, 'allocation_ratio': 16.0,
                         'min_unit': 1, 'step_size': 1},
                'MEMORY_MB': {'reserved': 512, 'total': 4096}}}},
        'allocations': {CONSUMER: {
            'allocations': {RP_A: {'resources': {'VCPU': 1}}},
            'project_id': PROJECT, 'user_id': USER, 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}}}
    assert reshaper(body) == (
        '{"inventories": {"%s": {"inventories": {"DISK_GB": {"total": 100, '
        '"allocation_ratio": 1, "reserved": 5}}, "resource_provider_generation": 3}, '
        '"%s": {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 8, '
        '"max_unit": 4, "allocation_ratio": 16.0, "min_unit": 1, "step_size": 1}, '
        '"MEMORY_MB": {"reserved": 512, "total": 4096}}}}, '
        '"consumers": [{"uuid": "%s", "allocations": {"%s": {"VCPU": 1}}, '
        '"project_id": "%s", "user_id": "%s", "consumer_type": "INSTANCE", '
        '"check_generation": true, "generation": null}]}'
        % (RP_B, RP_A, CONSUMER, RP_A, PROJECT, USER))


def test_an_empty_inventory_clears_the_provider(reshaper):
    body = {'inventories': {RP_A: {'resource_provider_generation': 7, 'inventories': {}}},
            'allocations': {}}
    assert reshaper(body, '1.30') == (
        '{"inventories": {"%s": {"resource_provider_generation": 7, "inventories": {}}}, '
        '"consumers": []}' % RP_A)
