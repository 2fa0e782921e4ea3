"""SQLite's one-statement pick and hold (objects/baremetal/node_choice.pick_and_hold).

The chosen node is given the allocation in the UPDATE that chooses it (no
``reservation`` written), then the allocation is activated in the same
transaction; anything that goes wrong rolls both back.
"""

import pytest
import sqlalchemy as sa

from common import exception
from conductor.manager import node_allocations
from db import api as db_api
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import node_choice, reservation
from tests.functional import baremetal_helpers as h


def _set_node(ctx, uuid, **values):
    with ctx.db.engine.begin() as conn:
        conn.execute(sa.text('UPDATE nodes SET %s WHERE uuid = :u' % ', '.join(
            '%s = :%s' % (k, k) for k in values)), dict(values, u=uuid))


def _node_row(ctx, uuid):
    with ctx.db.engine.connect() as conn:
        return conn.execute(sa.text('SELECT instance_uuid, allocation_id, reservation, '
                                    'instance_info FROM nodes WHERE uuid = :u'),
                            {'u': uuid}).one()


@pytest.fixture(autouse=True)
def _sqlite_only(ctx):
    # the statement is SQLite's: PostgreSQL picks with pick_and_reserve
    # (tests/functional/test_baremetal_races.py and the parity tier cover it)
    if ctx.db.engine.dialect.name != 'sqlite':
        pytest.skip('pick_and_hold is SQLite\'s one-statement hold')


def test_sqlite_has_the_one_statement_hold(ctx):
    assert ctx.db.engine.dialect.name == 'sqlite'


def test_instance_info_keeps_its_keys_and_gets_the_traits(bm, ctx):
    node = h.make_node(bm, 'kept', traits=['CUSTOM_T'])
    _set_node(ctx, node['uuid'], instance_info='{"image_source": "img", "traits": ["OLD"]}')
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'traits': ['CUSTOM_T'],
                                 'conductor_affinity': 'w'})
    written = node_allocations.NodeAllocator('w').allocate(ctx, row.id)
    assert written['state'] == 'active' and written['node_uuid'] == node['uuid']
    got = bm.get('/v1/nodes/kept').json()
    assert got['instance_uuid'] == row.uuid
    assert got['instance_info'] == {'image_source': 'img', 'traits': ['CUSTOM_T']}
    held = _node_row(ctx, node['uuid'])
    assert held.reservation is None and held.allocation_id == row.id


@pytest.mark.parametrize('info', [None, 'null', '[1, 2]'])
def test_instance_info_that_is_no_object_becomes_the_traits(bm, ctx, info):
    node = h.make_node(bm, 'bare')
    _set_node(ctx, node['uuid'], instance_info=info)
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'w'})
    written = node_allocations.NodeAllocator('w').allocate(ctx, row.id)
    assert written['state'] == 'active'
    assert bm.get('/v1/nodes/bare').json()['instance_info'] == {'traits': []}


def test_a_node_another_operation_holds_is_never_chosen(bm, ctx):
    busy = h.make_node(bm, 'busy')
    free = h.make_node(bm, 'free')
    _set_node(ctx, busy['uuid'], reservation='other-host')
    for _ in range(2):
        row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'w'})
        written = node_allocations.NodeAllocator('w').allocate(ctx, row.id)
        if written['state'] == 'active':
            assert written['node_uuid'] == free['uuid']
        else:
            assert written['state'] == 'error'
    assert _node_row(ctx, busy['uuid']).instance_uuid is None


def test_an_allocation_not_ours_rolls_the_hold_back(bm, ctx):
    """Should the activation not hold (the row is not ``host``'s), NodeAssociated
    rolls the node's write back with it."""
    node = h.make_node(bm, 'rolled')
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold',
                                 'conductor_affinity': 'someone-else'})

    @db_api.writer
    def pick_as(ctx, host):
        return reservation._pick(ctx, row, host)

    with pytest.raises(exception.NodeAssociated):
        pick_as(ctx, 'me')
    after = _node_row(ctx, node['uuid'])
    assert after.instance_uuid is None and after.allocation_id is None
    assert after.reservation is None
    assert node_alloc_obj.get_by_id(ctx, row.id).state == 'allocating'


def test_a_unique_constraint_refusal_is_node_associated(bm, ctx):
    """The allocation's uuid already some other node's instance: the write is refused."""
    h.make_node(bm, 'free-one')
    other = h.make_node(bm, 'manageable-one', state='manageable')
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'conductor_affinity': 'w'})
    _set_node(ctx, other['uuid'], instance_uuid=row.uuid)

    @db_api.writer
    def hold(ctx):
        return node_choice.pick_and_hold(ctx, row, 'w', node_alloc_obj.stamp(ctx))

    with pytest.raises(exception.NodeAssociated):
        hold(ctx)
    assert bm.get('/v1/nodes/free-one').json()['instance_uuid'] is None
    # the allocator then goes node by node and ends the allocation in error
    written = node_allocations.NodeAllocator('w').allocate(ctx, row.id)
    assert written['state'] == 'error'
    assert bm.get('/v1/nodes/free-one').json()['instance_uuid'] is None
