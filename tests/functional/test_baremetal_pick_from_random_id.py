"""PostgreSQL's pick of a node for an allocation without a name: from a random id on.

node_choice.pick_and_reserve first takes the first free node that fits at or
after a random node id (an index range, not a sort of every node that fits);
only when none is there does it draw among all of them.  SQLite and MySQL
pick otherwise, so these tests skip there.
"""

import pytest
import sqlalchemy as sa

from conductor.manager import node_allocations
from db import models
from objects.baremetal import allocation as node_alloc_obj
from tests.functional import baremetal_helpers as h


@pytest.fixture
def pg(ctx):
    if ctx.db.engine.dialect.name != 'postgresql':
        pytest.skip('PostgreSQL only (BERTH_TEST_DB=postgresql): its one-statement pick')
    return ctx


def _statements(engine):
    seen = []

    def record(conn, cursor, statement, params, context, executemany):
        seen.append(statement)
    sa.event.listen(engine, 'before_cursor_execute', record)
    return seen, lambda: sa.event.remove(engine, 'before_cursor_execute', record)


def _allocate(ctx, **values):
    row = node_alloc_obj.create_row(ctx, dict(values, resource_class='gold',
                                              conductor_affinity='w'))
    return node_allocations.NodeAllocator('w').allocate(ctx, row.id)


def test_a_pick_without_a_name_reads_nodes_in_id_order_from_a_random_one(bm, pg):
    for i in range(3):
        h.make_node(bm, 'n%d' % i)
    seen, stop = _statements(pg.db.engine)
    try:
        written = _allocate(pg)
    finally:
        stop()
    assert written['state'] == 'active'
    picks = [s for s in seen if s.lstrip().startswith('WITH chosen')]
    assert picks, seen
    first = ' '.join(picks[0].split())
    assert 'ORDER BY nodes.id' in first and 'random()' in first, first


def test_only_the_lowest_node_free_is_still_found_every_time(bm, pg):
    """The random start is usually above the one free node: the whole
    one-statement pick then finds it, not the slow node-by-node pass."""
    nodes = [h.make_node(bm, 'low%d' % i) for i in range(6)]
    with pg.db.engine.connect() as conn:
        ids = dict(conn.execute(sa.select(models.Node.uuid, models.Node.id)).all())
    free = min(nodes, key=lambda n: ids[n['uuid']])
    for node in nodes:
        if node is not free:
            resp = bm.put('/v1/nodes/%s/maintenance' % node['uuid'])
            assert resp.status_code < 300, resp.text
    for _ in range(8):
        seen, stop = _statements(pg.db.engine)
        try:
            written = _allocate(pg)
        finally:
            stop()
        assert (written['state'], written['node_uuid']) == ('active', free['uuid'])
        # decided by the one-statement picks, never node by node under a lock
        assert not [q for q in seen if 'SET reservation' in q], seen
        held = node_alloc_obj.get_by_node(pg, free['uuid'])
        assert bm.delete('/v1/allocations/%s' % held.uuid).status_code == 204


def test_a_named_allocation_still_gets_its_namesake_first(bm, pg):
    for i in range(5):
        h.make_node(bm, 'named%d' % i)
    written = _allocate(pg, name='named3')
    assert written['state'] == 'active'
    assert bm.get('/v1/nodes/named3').json()['uuid'] == written['node_uuid']
