"""NUL bytes and over-long ids in paths and filters are 400s, on every engine.

PostgreSQL refuses a NUL in a string parameter (psycopg2's ValueError, a
500 before); the request is refused before any database work instead.
Run with BERTH_TEST_DB=postgresql|mysql for the server engines.
"""

import pytest

from tests import fixtures

LONG = 'a' * 300

BAREMETAL = ['/v1/allocations/a%00b', '/v1/nodes/a%00b', '/v1/nodes/a%00b/traits',
             '/v1/allocations?node=a%00b', '/v1/allocations?owner=a%00b',
             '/v1/allocations?resource_class=a%00b', '/v1/nodes?owner=x%00',
             '/v1/nodes?resource_class=%00', '/v1/allocations?state=a%00',
             '/v1/allocations/' + LONG, '/v1/nodes/' + LONG,
             '/v1/allocations?node=' + LONG, '/v1/nodes/%s/traits' % LONG]
PLACEMENT = ['/resource_providers/a%00b', '/resource_providers?name=a%00b',
             '/resource_providers?uuid=a%00b', '/allocations/a%00b',
             '/resource_providers/a%00b/inventories', '/traits/CUSTOM_A%00',
             '/resource_classes/CUSTOM_A%00', '/usages?project_id=a%00b',
             '/resource_providers?in_tree=a%00b',
             '/allocation_candidates?resources=VCPU:1&member_of=a%00b',
             '/resource_providers?required=CUSTOM_%00']


@pytest.mark.parametrize('path', BAREMETAL)
def test_baremetal_hostile_ids_are_4xx(berth, bm, path):
    resp = bm.get(path)
    assert resp.status_code < 500, (resp.status_code, resp.text[:300])
    if '%00' in path:
        assert resp.status_code == 400, resp.text[:300]


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
