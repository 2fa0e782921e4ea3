"""NUL bytes and over-long ids in paths and filters are 400s, on every engine.

PostgreSQL refuses a NUL in a string parameter (psycopg2's ValueError, a
500 before); the request is refused before any database work instead.
Run with BERTH_TEST_DB=postgresql|mysql for the server engines.
"""

import pytest

from api.common import errors as common_errors
from tests import fixtures
from tests.functional import baremetal_helpers

LONG = 'a' * 300

BAREMETAL = ['/v1/allocations/a%00b', '/v1/nodes/a%00b', '/v1/nodes/a%00b/traits',
             '/v1/allocations?node=a%00b', '/v1/allocations?owner=a%00b',
             '/v1/allocations?resource_class=a%00b', '/v1/nodes?owner=x%00',
             '/v1/nodes?resource_class=%00', '/v1/allocations?state=a%00',
             '/v1/allocations/' + LONG, '/v1/nodes/' + LONG,
             '/v1/allocations?node=' + LONG, '/v1/nodes/%s/traits' % LONG,
             '/v1/nodes?instance_uuid=' + LONG, '/v1/nodes?marker=' + LONG,
             '/v1/allocations?marker=' + LONG, '/v1/nodes/%s/allocation' % LONG,
             '/v1/nodes/%s/states' % LONG, '/v1/nodes?chassis_uuid=' + LONG,
             '/v1/chassis/' + LONG]
PLACEMENT = ['/resource_providers/a%00b', '/resource_providers?name=a%00b',
             '/resource_providers?uuid=a%00b', '/allocations/a%00b',
             '/resource_providers/a%00b/inventories', '/traits/CUSTOM_A%00',
             '/resource_classes/CUSTOM_A%00', '/usages?project_id=a%00b',
             '/resource_providers?in_tree=a%00b',
             '/allocation_candidates?resources=VCPU:1&member_of=a%00b',
             '/resource_providers?required=CUSTOM_%00',
             '/resource_providers/' + LONG, '/resource_providers?name=' + LONG,
             '/resource_providers?uuid=' + LONG, '/allocations/' + LONG,
             '/resource_providers/%s/inventories' % LONG, '/traits/CUSTOM_' + LONG.upper(),
             '/resource_classes/CUSTOM_' + LONG.upper(), '/usages?project_id=' + LONG,
             '/resource_providers?in_tree=' + LONG,
             '/allocation_candidates?resources=VCPU:1&member_of=' + LONG,
             '/resource_providers/%s/aggregates' % LONG, '/resource_providers/%s/usages' % LONG]


@pytest.mark.parametrize('path', BAREMETAL)
def test_baremetal_hostile_ids_are_4xx(berth, bm, path):
    resp = bm.get(path)
    assert resp.status_code == 400, (resp.status_code, resp.text[:300])


@pytest.mark.parametrize('path', ['/v1/allocations/' + LONG, '/v1/nodes/' + LONG,
                                  '/v1/nodes/a%20b', '/v1/allocations/a%2Ab'])
@pytest.mark.parametrize('method', ['GET', 'PATCH', 'DELETE'])
def test_baremetal_path_neither_uuid_nor_name_is_ironics_400(berth, bm, path, method):
    resp = bm.request(method, path, json=[{'op': 'replace', 'path': '/name', 'value': 'x'}]
                      if method == 'PATCH' else None)
    assert resp.status_code == 400, (resp.status_code, resp.text[:300])
    ident = path.rsplit('/', 1)[1].replace('%20', ' ').replace('%2A', '*')
    assert baremetal_helpers.fault(resp) == (
        'Expected a logical name or UUID but received %s.' % common_errors.cut(ident))


@pytest.mark.parametrize('path', ['/v1/nodes?conductor=' + LONG,
                                  '/v1/allocations?resource_class=' + LONG])
def test_baremetal_long_plain_filters_are_not_5xx(berth, bm, path):
    resp = bm.get(path)
    assert resp.status_code < 500, (resp.status_code, resp.text[:300])


@pytest.mark.parametrize('path', PLACEMENT)
def test_placement_hostile_ids_are_4xx(berth, path):
    client = fixtures.PlacementClient(berth.placement_url, version='latest')
    try:
        resp = client.get(path)
    finally:
        client.close()
    assert resp.status_code < 500, (resp.status_code, resp.text[:300])
    if '%00' in path:
        assert resp.status_code == 400, resp.text[:300]
