"""The chaos suite's rules: what an answer guarantees, and what the checker expects.

tests/chaos/ runs a whole deployment; these pin its bookkeeping without one.
"""

import pytest

from tests.chaos import invariants, load


@pytest.mark.parametrize('kind,op,status,detail,outcome', [
    ('claim', 'create', 204, '', 'ok'),
    ('claim', 'create', 409, 'placement.concurrent_update', 'refused'),
    ('claim', 'create', 503, 'Service unavailable: no conductor is alive', 'refused'),
    ('claim', 'create', 503, 'Conductor c1 has no free worker for this request', 'refused'),
    ('claim', 'create', 503, 'conductor c1 did not answer in time', 'ambiguous'),
    ('claim', 'create', 503, 'the database cannot be reached', 'ambiguous'),
    ('claim', 'create', 500, 'unexpected', 'ambiguous'),
    ('claim', 'create', None, 'ConnectionError', 'ambiguous'),
    ('node', 'create', 503, 'the message broker cannot be reached', 'refused'),
    ('node', 'create', 503, 'the database cannot be reached', 'ambiguous'),
    ('node', 'delete', 503, 'the message broker cannot be reached', 'ambiguous'),
])
def test_classify(kind, op, status, detail, outcome):
    assert load.classify(kind, op, status, detail) == outcome


class _Stored:
    """What a Checker reads from the database, given directly."""

    def __init__(self, claims=None, nodes=None):
        self.claims = claims or {}
        self.nodes = nodes or {}

    def consumer_allocations(self):
        return self.claims

    def node_allocations(self):
        return self.nodes

    def allocating(self):
        return [u for u, s in self.nodes.items() if s == 'allocating']


ALLOC = {'rp': {'resources': {'VCPU': 1, 'MEMORY_MB': 256}}}


def _rec(kind, op, key, outcome, expect=None):
    return {'kind': kind, 'op': op, 'key': key, 'outcome': outcome, 'expect': expect,
            'status': {'ok': 204, 'refused': 409}.get(outcome), 't0': 0.0}


@pytest.mark.parametrize('records,stored,violations', [
    # answered 2xx: present exactly
    ([_rec('claim', 'create', 'c', 'ok', ALLOC)], {'c': ALLOC}, 0),
    ([_rec('claim', 'create', 'c', 'ok', ALLOC)], {}, 1),
    ([_rec('claim', 'create', 'c', 'ok', ALLOC)],
     {'c': {'rp': {'resources': {'VCPU': 1}}}}, 1),
    # refused: absent
    ([_rec('claim', 'create', 'c', 'refused')], {}, 0),
    ([_rec('claim', 'create', 'c', 'refused')], {'c': ALLOC}, 1),
    # ambiguous: either, never partial
    ([_rec('claim', 'create', 'c', 'ambiguous', ALLOC)], {}, 0),
    ([_rec('claim', 'create', 'c', 'ambiguous', ALLOC)], {'c': ALLOC}, 0),
    ([_rec('schedule', 'create', 'c', 'ambiguous')], {'c': ALLOC}, 0),
    ([_rec('schedule', 'create', 'c', 'ambiguous')],
     {'c': {'rp': {'resources': {'VCPU': 1}}}}, 1),
    # deleted (204): absent; deletion unanswered: either
    ([_rec('claim', 'create', 'c', 'ok', ALLOC), _rec('claim', 'delete', 'c', 'ok')],
     {'c': ALLOC}, 1),
    ([_rec('claim', 'create', 'c', 'ok', ALLOC),
      _rec('claim', 'delete', 'c', 'ambiguous')], {'c': ALLOC}, 0),
])
def test_claim_records_against_the_database(records, stored, violations):
    assert len(invariants.check_records(_Stored(claims=stored), records)) == violations


@pytest.mark.parametrize('records,nodes,violations', [
    ([_rec('node', 'create', 'a', 'ok')], {'a': 'active'}, 0),
    ([_rec('node', 'create', 'a', 'ok')], {'a': 'error'}, 0),
    ([_rec('node', 'create', 'a', 'ok')], {'a': 'allocating'}, 2),   # and left allocating
    ([_rec('node', 'create', 'a', 'ok')], {}, 1),
    ([_rec('node', 'create', 'a', 'refused')], {'a': 'active'}, 1),
    ([_rec('node', 'create', 'a', 'ok'), _rec('node', 'delete', 'a', 'ok')], {}, 0),
    ([_rec('node', 'create', 'a', 'ok'), _rec('node', 'delete', 'a', 'refused')], {}, 1),
])
def test_node_records_against_the_database(records, nodes, violations):
    assert len(invariants.check_records(_Stored(nodes=nodes), records)) == violations


@pytest.mark.parametrize('records,claims,nodes,lost', [
    ([_rec('claim', 'create', 'c', 'ok', ALLOC)], {'c': ALLOC}, {}, []),
    ([_rec('claim', 'create', 'c', 'ok', ALLOC)], {}, {}, ['c']),
    ([_rec('claim', 'create', 'c', 'ok', ALLOC)],
     {'c': {'rp': {'resources': {'VCPU': 1}}}}, {}, ['c']),
    # not acknowledged, or deleted: nothing to lose
    ([_rec('claim', 'create', 'c', 'ambiguous', ALLOC)], {}, {}, []),
    ([_rec('claim', 'create', 'c', 'refused')], {}, {}, []),
    ([_rec('claim', 'create', 'c', 'ok', ALLOC), _rec('claim', 'delete', 'c', 'ok')],
     {}, {}, []),
    ([_rec('node', 'create', 'a', 'ok')], {}, {'a': 'error'}, []),
    ([_rec('node', 'create', 'a', 'ok')], {}, {'a': 'allocating'}, ['a']),
    ([_rec('node', 'create', 'a', 'ok')], {}, {}, ['a']),
])
def test_lost_acknowledged_writes(records, claims, nodes, lost):
    from tests.ha import deployment
    found = deployment.lost_writes(_Stored(claims=claims, nodes=nodes), records)
    assert [r['key'] for r in found] == lost
