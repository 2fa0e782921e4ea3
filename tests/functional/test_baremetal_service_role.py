"""The service role's reach on /v1, as Ironic ships it (keystone identity headers).

Ironic's ``service_role`` rule (the ``service`` role in the project named
``[DEFAULT] rbac_service_project_name``) counts as a system member and
reader only with ``[DEFAULT] rbac_service_role_elevated_access``, default
off: off, a service-role token works on its own project's nodes, like
any project's.  Writes that go to a conductor (allocation create, update,
delete) are checked there again, on the same configuration.

tests/integration/test_baremetal_service_role.py is the real-Keystone twin.
"""

import pytest

from tests.functional import baremetal_helpers as h
from tests.functional import test_baremetal_rbac as rbac

as_project = rbac.as_project        # fixtures: the in-process /v1 app, the three nodes
nodes = rbac.nodes

SERVICE = {'project': 'service', 'roles': 'service'}
OTHER_MEMBER = {'project': 'p3', 'roles': rbac.MEMBER}
OTHER_READER = {'project': 'p3', 'roles': rbac.READER}
OTHER_ADMIN = {'project': 'p3', 'roles': rbac.ADMIN}
# the service role of a project that is not the service project
OTHER_SERVICE = {'project': 'p3', 'roles': 'service'}


@pytest.fixture
def theirs(bm, nodes):
    """p2's active allocation (on p2's node ``theirs``)."""
    return h.allocate(bm, resource_class='silver', owner='p2')


def _matrix(as_project, caller, alloc):
    """The status of each call ``caller`` makes on p2's node and allocation."""
    path = '/v1/allocations/%s' % alloc['uuid']
    return {
        'node get': as_project('GET', '/v1/nodes/theirs', **caller)[0],
        'node list': len((as_project('GET', '/v1/nodes', **caller)[1] or {})
                         .get('nodes', [])),
        'node patch': as_project('PATCH', '/v1/nodes/theirs', body=[
            {'op': 'add', 'path': '/extra/by', 'value': 'x'}], **caller)[0],
        'allocation get': as_project('GET', path, **caller)[0],
        'allocation list': len((as_project('GET', '/v1/allocations', **caller)[1] or {})
                               .get('allocations', [])),
        'allocation patch': as_project('PATCH', path, body=[
            {'op': 'add', 'path': '/extra/by', 'value': 'x'}], **caller)[0],
        'allocation delete': as_project('DELETE', path, **caller)[0],
    }


HIDDEN = {'node get': 404, 'node list': 0, 'node patch': 404, 'allocation get': 404,
          'allocation list': 0, 'allocation patch': 404, 'allocation delete': 404}
ELEVATED = {'node get': 200, 'node list': 3, 'node patch': 200, 'allocation get': 200,
            'allocation list': 1, 'allocation patch': 200, 'allocation delete': 204}


@pytest.mark.parametrize('caller', [SERVICE, OTHER_MEMBER, OTHER_READER, OTHER_ADMIN,
                                    OTHER_SERVICE],
                         ids=['service', 'member', 'reader', 'admin', 'p3-service'])
def test_by_default_no_project_token_reaches_another_projects_rows(bm, as_project,
                                                                    theirs, caller):
    assert _matrix(as_project, caller, theirs) == HIDDEN
    shown = bm.get('/v1/allocations/%s' % theirs['uuid']).json()
    assert shown['state'] == 'active' and shown['extra'] == {}
    assert bm.get('/v1/nodes/theirs').json()['extra'] == {}


def test_by_default_the_service_role_may_not_allocate_for_another_project(
        bm, as_project, nodes):
    status, _ = as_project('POST', '/v1/allocations', body={
        'resource_class': 'silver', 'owner': 'p2'}, **SERVICE)
    assert status == 403


def test_the_service_role_works_on_its_own_projects_nodes(bm, as_project, nodes):
    """Off, it is Ironic's project service role: p1's service role and p1's node."""
    own = {'project': 'p1', 'roles': 'service'}
    assert as_project('GET', '/v1/nodes/mine', **own)[0] == 200
    # Ironic's project service rule is in baremetal:node:update:name (not in
    # update_extra, a project member's)
    assert as_project('PATCH', '/v1/nodes/mine', body=[
        {'op': 'replace', 'path': '/name', 'value': 'mine-2'}], **own)[0] == 200
    assert as_project('GET', '/v1/nodes/theirs', **own)[0] == 404
    assert as_project('PATCH', '/v1/nodes/theirs', body=[
        {'op': 'replace', 'path': '/name', 'value': 'theirs-2'}], **own)[0] == 404


def test_with_elevated_access_the_service_project_reaches_every_project(
        berth, bm, as_project, theirs):
    berth.conf.set_override('rbac_service_role_elevated_access', True)
    try:
        assert _matrix(as_project, SERVICE, theirs) == ELEVATED
        assert bm.get('/v1/nodes/theirs').json()['extra'] == {'by': 'x'}
        # an allocation for another project goes through a conductor's check too
        status, body = as_project('POST', '/v1/allocations', body={
            'resource_class': 'silver', 'owner': 'p2'}, **SERVICE)
        assert status == 201 and body['owner'] == 'p2'
        assert h.wait_allocation(bm, body['uuid'])['state'] == 'active'
    finally:
        berth.conf.clear_override('rbac_service_role_elevated_access')


@pytest.mark.parametrize('caller', [OTHER_MEMBER, OTHER_READER, OTHER_ADMIN,
                                    OTHER_SERVICE],
                         ids=['member', 'reader', 'admin', 'p3-service'])
def test_elevated_access_is_the_service_projects_only(berth, bm, as_project, theirs,
                                                      caller):
    berth.conf.set_override('rbac_service_role_elevated_access', True)
    try:
        assert _matrix(as_project, caller, theirs) == HIDDEN
    finally:
        berth.conf.clear_override('rbac_service_role_elevated_access')


def test_the_service_project_is_the_configured_one(berth, bm, as_project, theirs):
    berth.conf.set_override('rbac_service_role_elevated_access', True)
    berth.conf.set_override('rbac_service_project_name', 'p3')
    try:
        assert _matrix(as_project, SERVICE, theirs) == HIDDEN
        assert _matrix(as_project, OTHER_SERVICE, theirs) == ELEVATED
    finally:
        berth.conf.clear_override('rbac_service_role_elevated_access')
        berth.conf.clear_override('rbac_service_project_name')
