"""Paging a listing sorted by a nullable column, on every engine (BERTH_TEST_DB).

PostgreSQL puts NULLs last in an ascending order, SQLite and MariaDB first;
the marker's "rows after" condition must match the order the query asks
for, or paging skips or repeats the rows whose column is NULL.  berth's
order is the same on all three: NULLs first ascending, last descending.
"""

import pytest

from tests.functional import baremetal_helpers as h

# node name -> owner; the names are also sorted to check ``sort_key=name``
OWNERS = {'n0': None, 'n1': 'p1', 'n2': None, 'n3': 'p2', 'n4': 'p1', 'n5': None,
          'n6': 'p2'}


def _walk(bm, query, limit):
    """Every page of ``/v1/nodes?<query>&limit=<limit>``, following ``next``."""
    seen, marker = [], None
    for _ in range(len(OWNERS) + 2):
        url = '/v1/nodes?%s&limit=%d' % (query, limit)
        if marker:
            url += '&marker=%s' % marker
        resp = bm.get(url)
        assert resp.status_code == 200, resp.text
        page = resp.json()
        seen.extend(n['uuid'] for n in page['nodes'])
        if 'next' not in page:
            return seen
        assert 'limit=%d' % limit in page['next']
        marker = page['nodes'][-1]['uuid']
    raise AssertionError('paging did not end: %s' % seen)


@pytest.mark.parametrize('sort_dir', ['asc', 'desc'])
def test_paging_by_a_nullable_column_skips_and_repeats_nothing(bm, sort_dir):
    made = {}
    for name, owner in OWNERS.items():
        made[name] = h.make_node(bm, name, state='enroll',
                                 **({'owner': owner} if owner else {}))
    query = 'sort_key=owner&sort_dir=%s&fields=uuid' % sort_dir
    full = [n['uuid'] for n in bm.get('/v1/nodes?' + query).json()['nodes']]
    assert sorted(full) == sorted(n['uuid'] for n in made.values())
    # the engine's own NULL order does not show: NULLs first ascending, then id
    key = sorted(OWNERS, key=lambda n: (OWNERS[n] is not None, OWNERS[n] or '', n))
    want = [made[n]['uuid'] for n in key]
    assert full == (want if sort_dir == 'asc' else want[::-1])
    for limit in (1, 2, 3):
        assert _walk(bm, query, limit) == full, (sort_dir, limit)


def test_paging_by_name_with_unnamed_nodes(bm):
    made = [h.make_node(bm, name, state='enroll') for name in ('b', None, 'a', None)]
    for sort_dir in ('asc', 'desc'):
        query = 'sort_key=name&sort_dir=%s&fields=uuid' % sort_dir
        full = [n['uuid'] for n in bm.get('/v1/nodes?' + query).json()['nodes']]
        want = [made[i]['uuid'] for i in (1, 3, 2, 0)]
        assert full == (want if sort_dir == 'asc' else want[::-1])
        for limit in (1, 2, 3):
            assert _walk(bm, query, limit) == full, (sort_dir, limit)
