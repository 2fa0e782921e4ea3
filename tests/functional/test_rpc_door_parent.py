"""``parent_node`` (API 1.83) over the conductor's ``update_node`` RPC.

berth-api resolves and checks a parent (api/baremetal/node_parent.py) before
it calls; a caller on the bus may skip berth-api, so the conductor checks
the same: the parent exists, the caller may see it, and its owner is the
node's, else Invalid with Ironic's one text and nothing is written.
"""

import pytest

from common import context as berth_context
from common import exception
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import alloc_helpers
from tests.functional import baremetal_helpers as h

TEXT = "Unable to apply the requested parent_node '%s'. Requested value was invalid."


def _ctx(**kwargs):
    return berth_context.RequestContext(user_id='u', overwrite=False, **kwargs)


# ``baremetal:node:update:parent_node`` is a system member's (Ironic's default)
SYSTEM_MEMBER = _ctx(project_id=None, roles=['member', 'reader'], system_scope='all')
# a project admin of the owner passes ``node:update`` but not the parent rule
OWNER_ADMIN = _ctx(project_id='project-a', roles=['admin', 'member', 'reader'])


@pytest.fixture
def allocated(berth, bm):
    """A node of project-a holding an allocation, and that allocation's conductor."""
    node = h.make_node(bm, owner='project-a')
    mine = h.allocate(bm, resource_class='gold', owner='project-a')
    assert mine['node_uuid'] == node['uuid'], mine
    row = node_alloc_obj.get(berth_context.admin_context(berth.db), mine['uuid'])
    cctxt = berth.conductor_api.client.prepare(server=row.conductor_affinity,
                                               version='1.6')
    return node, mine, cctxt


def test_a_parent_of_another_owner_or_none_is_invalid_over_rpc(bm, allocated):
    node, mine, cctxt = allocated
    other = h.make_node(bm, owner='project-b', state='enroll')
    unowned = h.make_node(bm, state='enroll')
    for parent in (other['uuid'], unowned['uuid'], alloc_helpers.new_uuid()):
        with pytest.raises(exception.Invalid) as err:
            cctxt.call(SYSTEM_MEMBER, 'update_node', node=node['uuid'],
                       values={'instance_uuid': None, 'parent_node': parent})
        assert err.value.message == TEXT % parent
    got = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert (got['parent_node'], got['allocation_uuid']) == (None, mine['uuid'])
    assert bm.get('/v1/allocations/%s' % mine['uuid']).json()['state'] == 'active'

    # the parent rule first: an owner's admin may not set a parent at all
    sibling = h.make_node(bm, owner='project-a', state='enroll')
    with pytest.raises(exception.Forbidden):
        cctxt.call(OWNER_ADMIN, 'update_node', node=node['uuid'],
                   values={'instance_uuid': None, 'parent_node': sibling['uuid']})
    # a node of the same owner is a parent
    cctxt.call(SYSTEM_MEMBER, 'update_node', node=node['uuid'],
               values={'instance_uuid': None, 'parent_node': sibling['uuid']})
    got = bm.get('/v1/nodes/%s' % node['uuid']).json()
    assert (got['parent_node'], got['allocation_uuid']) == (sibling['uuid'], None)


def test_the_rest_answer_is_the_same_400(bm, allocated):
    """Through berth-api (which forwards this PATCH): Ironic's 400, nothing written."""
    node, mine, _ = allocated
    other = h.make_node(bm, owner='project-b', state='enroll')
    resp = bm.patch('/v1/nodes/%s' % node['uuid'], json=[
        {'op': 'remove', 'path': '/instance_uuid'},
        {'op': 'add', 'path': '/parent_node', 'value': other['uuid']}])
    assert resp.status_code == 400, resp.text
    assert TEXT % other['uuid'] in resp.text
    assert bm.get('/v1/allocations/%s' % mine['uuid']).json()['state'] == 'active'
