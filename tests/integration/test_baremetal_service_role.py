"""The service role with elevated access, with tokens of a real Keystone.

With ``[DEFAULT] rbac_service_role_elevated_access`` (Ironic's option) the
``service`` role in the ``service`` project works on every project's nodes
and allocations, on the REST API and on the conductor it forwards to; the
members and readers of another project still see none of them.  Off (the
default) is the ``service`` row of tests/integration/test_baremetal_tenants.py.
The fast twin with keystone headers is
tests/functional/test_baremetal_service_role.py.
"""

import pytest

from tests import keystone_berth as ks_berth
from tests.integration.conftest import MARKS
from tests.integration.test_baremetal_tenants import Caller, _allocate, _node, _ok

pytestmark = MARKS


@pytest.fixture
def elevated_berth(keystone, tenants, tmp_path_factory, tmp_path):
    stack = ks_berth.start_berth(tmp_path_factory.getbasetemp(), tmp_path / 'state',
                                 keystone, tenants,
                                 rbac_service_role_elevated_access=True)
    yield stack
    stack.stop()


def test_the_service_project_reaches_every_project_when_enabled(elevated_berth, tenants):
    who = {name: Caller(elevated_berth, tenants, name)
           for name in ('system-admin', 'service', 'a-member', 'a-reader', 'b-member')}
    b = tenants.projects['B']
    node_b = _node(who['system-admin'], 'b-svc', b, 'b-svc')
    alloc_b = _allocate(who['b-member'], 'b-svc')
    node_path, alloc_path = '/v1/nodes/%s' % node_b['uuid'], '/v1/allocations/%s' % (
        alloc_b['uuid'])
    patch = [{'op': 'add', 'path': '/extra/by', 'value': 'x'}]

    table = {}
    for name in ('a-member', 'a-reader', 'service'):
        c = who[name]
        listed = c.v1('GET', '/v1/allocations')
        table[name] = (
            c.v1('GET', node_path).status_code,
            c.v1('GET', alloc_path).status_code,
            len(listed.json()['allocations']) if listed.status_code == 200 else None,
            c.v1('PATCH', node_path, patch).status_code,
            c.v1('PATCH', alloc_path, patch).status_code,
            c.v1('POST', '/v1/allocations', {'resource_class': 'b-svc',
                                             'owner': b}).status_code)
    print('\n(node, alloc, listed, PATCH node, PATCH alloc, POST for B):', table)
    # another project's member and reader: nothing of B's, elevated access or not
    assert table['a-member'] == (404, 404, 0, 404, 404, 403)
    assert table['a-reader'] == (404, 404, 0, 404, 404, 403)
    # the service role in the service project: a system member (no node left
    # for its own allocation for B: the pool's one node is B's, allocated)
    assert table['service'][:5] == (200, 200, 1, 200, 200)
    assert table['service'][5] == 201
    seen = _ok(who['system-admin'].v1('GET', alloc_path), 200)
    assert seen['extra'] == {'by': 'x'}
    assert _ok(who['system-admin'].v1('GET', node_path), 200)['extra'] == {'by': 'x'}
