"""Which conductor a node names (api/baremetal/node_conductor.py), over a stand-in ring.

The ring stands in for the tooz group (a process edge): its members and
owners are fixed here, so each rule is checked on a case where the rules
would disagree.
"""

import types

from api.baremetal import node_conductor
from common import exception


class FakeRing:
    def __init__(self, members, owners):
        self._members = frozenset(members)
        self._owners = owners

    def members(self):
        return self._members

    def owner(self, key):
        if not self._members:
            raise exception.ServiceUnavailable(reason='no conductor is alive')
        return self._owners[key]


def _node(uuid, allocation_uuid=None):
    return types.SimpleNamespace(uuid=uuid, allocation_uuid=allocation_uuid)


def _req(ring):
    return types.SimpleNamespace(environ={}, conductor=types.SimpleNamespace(ring=ring),
                                 context=None)


OWNERS = {'n1': 'a', 'n2': 'b', 'n3': 'a', 'n4': 'b', 'alloc-1': 'b'}


def test_a_free_node_names_the_ring_owner_of_its_uuid():
    ring = FakeRing({'a', 'b'}, OWNERS)
    assert node_conductor._answer(ring, _node('n1'), {}) == 'a'
    assert node_conductor._answer(ring, _node('n2'), {}) == 'b'


def test_an_allocated_node_names_its_allocations_holder_while_alive():
    ring = FakeRing({'a', 'b'}, OWNERS)
    node = _node('n2', 'alloc-1')          # node owner b, allocation owner b
    assert node_conductor._answer(ring, node, {'alloc-1': 'a'}) == 'a'


def test_a_departed_holder_gives_way_to_the_ring_owner_of_the_allocation():
    ring = FakeRing({'a', 'b'}, OWNERS)
    node = _node('n1', 'alloc-1')          # node owner a, allocation owner b
    assert node_conductor._answer(ring, node, {'alloc-1': 'gone'}) == 'b'
    assert node_conductor._answer(ring, node, {'alloc-1': None}) == 'b'


def test_no_live_conductor_means_none():
    req = _req(FakeRing(set(), OWNERS))
    assert node_conductor.of(req, _node('n1')) is None
    req = types.SimpleNamespace(environ={}, conductor=None, context=None)
    assert node_conductor.of(req, _node('n1')) is None


def test_filter_pages_reads_on_until_the_page_is_full():
    req = _req(FakeRing({'a', 'b'}, OWNERS))
    nodes = [_node(u) for u in ('n1', 'n2', 'n3', 'n4')]
    asked = []

    def fetch(limit, marker):
        asked.append(marker)
        start = 0 if marker is None else [n.uuid for n in nodes].index(marker) + 1
        return nodes[start:start + limit]

    found = node_conductor.filter_pages(req, fetch, 2, None, 'a')
    assert [n.uuid for n in found] == ['n1', 'n3']
    assert asked == [None, 'n2']           # the first page held one match only
    assert node_conductor.filter_pages(req, fetch, 2, 'n3', 'a') == []
