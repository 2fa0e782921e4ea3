"""A NUL in any string of a JSON body, and an over-long quota project id, are 400s.

PostgreSQL refuses a NUL character in text and a value wider than its
column (a 500 before, for ``POST /v1/allocations {"resource_class":
"a\\u0000b"}``, ``POST /resource_providers {"name": "a\\u0000b"}`` and
``PUT /quotas/<300 characters>``); the other engines stored them.  Both
APIs now refuse a NUL in any string or key of a body where the body is
parsed (api.common.jsonbody), before any field's own check, and the quota
path's project id is held to the column's width: a 400 in each API's own
error format, on every engine.  Run with BERTH_TEST_DB=postgresql|mysql for
the server engines.
"""

import json

import pytest

from tests import fixtures
from tests.functional import baremetal_helpers

NUL = 'a\x00b'
NUL_TEXT = 'a string holds a NUL character (\\u0000)'
RP = '7c3e1d9a-1b2c-4d5e-8f90-a1b2c3d4e5f6'
CONSUMER = '0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f'

# (path, body) of /v1: one string or key at a time holds a NUL
BAREMETAL = [
    ('/v1/allocations', {'resource_class': NUL}),
    ('/v1/allocations', {'resource_class': 'gold', 'name': NUL}),
    ('/v1/allocations', {'resource_class': 'gold', 'extra': {'k': NUL}}),
    ('/v1/allocations', {'resource_class': 'gold', 'extra': {NUL: 'v'}}),
    ('/v1/allocations', {'resource_class': 'gold', 'traits': [NUL]}),
    ('/v1/allocations', {'resource_class': 'gold', 'owner': NUL}),
    ('/v1/nodes', {'driver': 'fake-hardware', 'name': NUL}),
    ('/v1/nodes', {'driver': 'fake-hardware', 'properties': {'cpu': NUL}}),
    ('/v1/nodes', {'driver': 'fake-hardware', 'description': NUL}),
    ('/v1/chassis', {'description': NUL}),
]
# (method, path, body) of Placement
PLACEMENT = [
    ('POST', '/resource_providers', {'name': NUL}),
    ('POST', '/resource_classes', {'name': 'CUSTOM_A' + NUL}),
    ('PUT', '/allocations/' + CONSUMER, {
        'allocations': {RP: {'resources': {'VCPU': 1}}}, 'project_id': NUL,
        'user_id': 'u', 'consumer_generation': None}),
    ('PUT', '/allocations/' + CONSUMER, {
        'allocations': {RP: {'resources': {'VCPU': 1}}}, 'project_id': 'p',
        'user_id': 'u', 'consumer_generation': None, 'consumer_type': NUL}),
    ('PUT', '/resource_providers/%s/traits' % RP, {
        'traits': [NUL], 'resource_provider_generation': 0}),
    ('PUT', '/resource_providers/%s/aggregates' % RP, {
        'aggregates': [NUL], 'resource_provider_generation': 0}),
    ('PUT', '/quotas/p1', {'resources': {NUL: 1}}),
]


@pytest.mark.parametrize('path,body', BAREMETAL)
def test_baremetal_nul_in_a_body_is_ironics_400(berth, bm, path, body):
    resp = bm.post(path, json=body)
    assert resp.status_code == 400, (resp.status_code, resp.text[:300])
    assert NUL_TEXT in baremetal_helpers.fault(resp)


def test_baremetal_nul_in_a_patch_value_is_ironics_400(berth, bm):
    baremetal_helpers.make_node(bm, 'n-nul', owner='p1')
    for patch in ([{'op': 'add', 'path': '/extra/k', 'value': NUL}],
                  [{'op': 'replace', 'path': '/name', 'value': NUL}],
                  [{'op': 'add', 'path': '/extra/' + NUL, 'value': 1}]):
        resp = bm.request('PATCH', '/v1/nodes/n-nul', json=patch)
        assert resp.status_code == 400, (resp.status_code, resp.text[:300])
        assert NUL_TEXT in baremetal_helpers.fault(resp)
    assert bm.get('/v1/nodes/n-nul').json()['extra'] == {}


def _placement(berth):
    return fixtures.PlacementClient(berth.placement_url, version='latest')


def _error(resp):
    assert resp.status_code == 400, (resp.status_code, resp.text[:300])
    error = resp.json()['errors'][0]
    assert error['code'] == 'placement.undefined_code'
    return error['detail']


@pytest.mark.parametrize('method,path,body', PLACEMENT)
def test_placement_nul_in_a_body_is_placements_400(berth, method, path, body):
    client = _placement(berth)
    try:
        if '/resource_providers/' in path:
            assert client.post('/resource_providers', json={
                'name': 'rp', 'uuid': RP}).status_code == 200
        resp = client.request(method, path, json=body)
        detail = _error(resp)
        assert NUL_TEXT in detail
        assert client.get('/resource_providers?name=' + 'a%00b').status_code == 400
    finally:
        client.close()


def test_a_nul_escape_outside_a_string_is_left_to_json(berth):
    """Only decoded strings are looked at: ``"a\\\\u0000b"`` (a backslash) is text."""
    client = _placement(berth)
    try:
        resp = client.post('/resource_providers', json={'name': 'a\\u0000b'})
        assert resp.status_code == 200, resp.text[:300]
        assert resp.json()['name'] == 'a\\u0000b'
    finally:
        client.close()


@pytest.mark.parametrize('method', ['GET', 'PUT', 'DELETE'])
def test_an_over_long_quota_project_id_is_placements_400(berth, method):
    client = _placement(berth)
    try:
        resp = client.request(method, '/quotas/' + 'p' * 300,
                              json={'resources': {'VCPU': 1}} if method == 'PUT' else None)
        assert 'longer than 255 characters' in _error(resp)
        ok = client.request(method, '/quotas/' + 'p' * 255,
                            json={'resources': {'VCPU': 1}} if method == 'PUT' else None)
        assert ok.status_code < 300, (ok.status_code, ok.text[:300])
    finally:
        client.close()


def test_a_nul_body_raw_on_the_wire_is_the_same_400(berth):
    """The escape as a client sends it (no client library in between)."""
    client = _placement(berth)
    try:
        resp = client.request('POST', '/resource_providers',
                              data=b'{"name": "a\\u0000b"}',
                              headers={'content-type': 'application/json'})
        assert NUL_TEXT in _error(resp)
        assert json.loads(resp.text)['errors'][0]['status'] == 400
    finally:
        client.close()
