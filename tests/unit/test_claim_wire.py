"""PUT /allocations/{consumer} and POST /allocations: the claim as it goes on the bus.

The handler builds one typed ClaimConsumer per consumer; the RPC client
serialises it only at the wire (``to_primitive``).  These pin, byte for byte,
the ``consumers`` argument of ``claim_resources`` that each request shape
becomes, so a change to how the write is carried (issue 53: one typed
contract from handler to row) cannot change what an older conductor reads.
The conductor is the process edge: a recorder stands in for the RPC client.
"""

import json

import pytest
import webob

from api.placement import app as placement_app
from common.conf import builder
from objects import database

CONSUMER = '11111111-1111-4111-8111-111111111111'
OTHER = '22222222-2222-4222-8222-222222222222'
RP_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
RP_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
PROJECT = '33333333-3333-4333-8333-333333333333'
USER = '44444444-4444-4444-8444-444444444444'


class RecordingConductor:
    """What the handler hands the RPC client, as the client puts it on the bus."""

    def __init__(self):
        self.sent = []

    def claim_resources(self, ctx, consumers):
        self.sent.append(json.dumps([c.to_primitive() for c in consumers]))


@pytest.fixture
def placement(tmp_path):
    conf = builder.build(config_files=[], overrides={
        'state_path': str(tmp_path), 'api.auth_strategy': 'noauth2'})
    db = database.open_database(conf)
    conductor = RecordingConductor()
    app = placement_app.loadapp(conf, db, conductor)

    def send(method, path, version, body):
        req = webob.Request.blank(path, method=method, headers={
            'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement %s' % version,
            'Content-Type': 'application/json'})
        req.body = json.dumps(body).encode()
        resp = req.get_response(app)
        assert resp.status_int == 204, resp.text
        assert len(conductor.sent) == 1
        return conductor.sent.pop()

    yield send
    db.dispose()


def test_put_1_0_list_merges_a_repeated_provider_and_takes_the_incomplete_consumer(placement):
    body = {'allocations': [
        {'resource_provider': {'uuid': RP_A}, 'resources': {'VCPU': 1}},
        {'resource_provider': {'uuid': RP_B}, 'resources': {'DISK_GB': 10}},
        {'resource_provider': {'uuid': RP_A}, 'resources': {'VCPU': 2, 'MEMORY_MB': 512}}]}
    assert placement('PUT', '/allocations/' + CONSUMER, '1.0', body) == (
        '[{"uuid": "%s", "allocations": {"%s": {"VCPU": 3, "MEMORY_MB": 512}, '
        '"%s": {"DISK_GB": 10}}, "project_id": "00000000-0000-0000-0000-000000000000", '
        '"user_id": "00000000-0000-0000-0000-000000000000", "consumer_type": null, '
        '"check_generation": false, "generation": null}]' % (CONSUMER, RP_A, RP_B))


def test_put_1_28_carries_the_consumer_generation(placement):
    body = {'allocations': {RP_A: {'resources': {'VCPU': 1}}}, 'project_id': PROJECT,
            'user_id': USER, 'consumer_generation': 4}
    assert placement('PUT', '/allocations/' + CONSUMER.upper(), '1.28', body) == (
        '[{"uuid": "%s", "allocations": {"%s": {"VCPU": 1}}, "project_id": "%s", '
        '"user_id": "%s", "consumer_type": null, "check_generation": true, '
        '"generation": 4}]' % (CONSUMER, RP_A, PROJECT, USER))


def test_post_1_38_sends_every_consumer_sorted_with_its_type(placement):
    body = {
        OTHER: {'allocations': {}, 'project_id': PROJECT, 'user_id': USER,
                'consumer_generation': 1, 'consumer_type': 'MIGRATION'},
        CONSUMER: {'allocations': {RP_B: {'resources': {'DISK_GB': 5}}},
                   'project_id': PROJECT, 'user_id': USER,
                   'consumer_generation': None, 'consumer_type': 'INSTANCE'}}
    assert placement('POST', '/allocations', '1.38', body) == (
        '[{"uuid": "%s", "allocations": {"%s": {"DISK_GB": 5}}, "project_id": "%s", '
        '"user_id": "%s", "consumer_type": "INSTANCE", "check_generation": true, '
        '"generation": null}, '
        '{"uuid": "%s", "allocations": {}, "project_id": "%s", "user_id": "%s", '
        '"consumer_type": "MIGRATION", "check_generation": true, "generation": 1}]'
        % (CONSUMER, RP_B, PROJECT, USER, OTHER, PROJECT, USER))
