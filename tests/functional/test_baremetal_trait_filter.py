"""The node allocation's trait filter: a node must hold every requested trait, on every engine.

The filter is one counted subquery over node_traits (objects/baremetal/node_choice.py);
these run on the engine ``BERTH_TEST_DB`` selects, through each engine's own
pick (PostgreSQL's one-statement reserve, SQLite's hold, MariaDB's candidate query).
"""

from sqlalchemy.dialects import postgresql

from common import context as berth_context
from objects.baremetal import node_choice
from tests.functional import baremetal_helpers as h

FIFTY = ['CUSTOM_T%d' % i for i in range(50)]
NO_TRAITS = 'no suitable nodes have the requested traits'


def test_fifty_traits_need_a_node_with_all_fifty(bm):
    full = h.make_node(bm, 'full', traits=FIFTY)
    h.make_node(bm, 'most', traits=FIFTY[:-1] + ['CUSTOM_OTHER'])
    first = h.allocate(bm, resource_class='gold', traits=FIFTY)
    assert first['state'] == 'active' and first['node_uuid'] == full['uuid']
    again = h.allocate(bm, resource_class='gold', traits=FIFTY)
    assert again['state'] == 'error' and again['node_uuid'] is None
    assert NO_TRAITS in again['last_error']
    assert bm.get('/v1/nodes/most').json()['instance_uuid'] is None


def test_one_trait_and_no_trait(bm):
    plain = h.make_node(bm, 'plain')
    gpu = h.make_node(bm, 'gpu', traits=['CUSTOM_GPU', 'CUSTOM_X'])
    one = h.allocate(bm, resource_class='gold', traits=['CUSTOM_GPU'])
    assert one['state'] == 'active' and one['node_uuid'] == gpu['uuid']
    missing = h.allocate(bm, resource_class='gold', traits=['CUSTOM_GPU'])
    assert missing['state'] == 'error' and NO_TRAITS in missing['last_error']
    none = h.allocate(bm, resource_class='gold')
    assert none['state'] == 'active' and none['node_uuid'] == plain['uuid']


def test_repeated_traits_count_once(bm):
    one = h.make_node(bm, 'one', traits=['CUSTOM_A'])
    two = h.make_node(bm, 'two', traits=['CUSTOM_A', 'CUSTOM_B'])
    b = h.allocate(bm, resource_class='gold', traits=['CUSTOM_B', 'CUSTOM_B'])
    assert b['state'] == 'active' and b['node_uuid'] == two['uuid']
    a = h.allocate(bm, resource_class='gold', traits=['CUSTOM_A'] * 3)
    assert a['state'] == 'active' and a['node_uuid'] == one['uuid']
    h.make_node(bm, 'three', traits=['CUSTOM_A'])
    lacking = h.allocate(bm, resource_class='gold', traits=['CUSTOM_A', 'CUSTOM_C',
                                                             'CUSTOM_A', 'CUSTOM_C'])
    assert lacking['state'] == 'error' and NO_TRAITS in lacking['last_error']


def test_fifty_traits_are_one_subquery_not_one_per_trait():
    class Alloc:
        candidate_nodes = owner = name = None
        resource_class = 'gold'
        id = 1
        uuid = 'u'
        traits = FIFTY

    for query in (node_choice.limited_query('postgresql', Alloc, 1, ()),
                  node_choice._reserve_statement(Alloc),
                  node_choice._reserve_statement(Alloc, from_random_id=True)):
        sql = str(query.compile(dialect=postgresql.dialect()))
        assert sql.count('FROM node_traits') == 1, sql
    limited = str(node_choice.limited_query('postgresql', Alloc, 1, ()).compile(
        dialect=postgresql.dialect()))
    assert 'EXISTS' not in limited.upper(), limited
    # the count compared is that of the distinct traits asked
    params = node_choice.shape_params(type('A', (Alloc,), {'traits': ['X', 'Y', 'X']}))
    assert params['trait_count'] == 2


class _Ask:
    """What the candidate query reads of an allocation."""
    candidate_nodes = owner = name = None
    resource_class = 'gold'

    def __init__(self, traits):
        self.traits = traits


def _chosen(berth, traits):
    ctx = berth_context.admin_context(berth.db)
    return {c.name for c in node_choice.find_candidates(ctx, _Ask(traits), limit=10)}


def test_the_query_alone_keeps_nodes_with_every_trait(berth, bm):
    # the conductor falls back on a Python re-check; this is the SQL filter alone
    h.make_node(bm, 'full', traits=FIFTY)
    h.make_node(bm, 'most', traits=FIFTY[:-1] + ['CUSTOM_OTHER'])
    h.make_node(bm, 'ab', traits=['CUSTOM_A', 'CUSTOM_B'])
    h.make_node(bm, 'plain')
    assert _chosen(berth, FIFTY) == {'full'}
    assert _chosen(berth, FIFTY[:-1]) == {'full', 'most'}
    assert _chosen(berth, FIFTY[:1]) == {'full', 'most'}
    assert _chosen(berth, []) == {'full', 'most', 'ab', 'plain'}
    assert _chosen(berth, ['CUSTOM_B', 'CUSTOM_B', 'CUSTOM_A']) == {'ab'}
    assert _chosen(berth, ['CUSTOM_A', 'CUSTOM_C', 'CUSTOM_A']) == set()
    assert _chosen(berth, FIFTY + FIFTY[:13]) == {'full'}
