"""Ranking and greedy placement of schedule-and-claim (conductor.manager.scheduling)."""

import copy

from conductor.manager import scheduling
from objects.candidates import request as candidates_request
from objects.candidates import weighers


class _P:
    def __init__(self, root_id, sharing=False):
        self.root_id = root_id
        self.sharing = sharing


class _Cand:
    def __init__(self, rp, root_id, vcpu=2):
        self.allocations = {rp: {'resources': {'VCPU': vcpu}}}
        self.providers = [_P(root_id)]


def _summaries(**used):
    return {rp: {'resources': {'VCPU': {'capacity': 4, 'used': u}}}
            for rp, u in used.items()}


def test_rank_orders_by_weigher_and_keeps_ties_stable():
    cands = [_Cand('a', 1), _Cand('b', 2), _Cand('c', 3)]
    summ = _summaries(a=2, b=0, c=0)
    ranked = scheduling.rank(weighers.get('spread'), cands, summ)
    assert [c.allocations.popitem()[0] for c in ranked] == ['b', 'c', 'a']


def test_subset_first_shuffles_only_the_head():
    import random
    ranked = list(range(10))
    assert scheduling.subset_first(ranked, 1) == ranked
    mixed = scheduling.subset_first(ranked, 4, random.Random(3))
    assert sorted(mixed[:4]) == [0, 1, 2, 3] and mixed[4:] == ranked[4:]


def test_place_many_updates_usage_between_consumers():
    cands = [_Cand('a', 1), _Cand('b', 2)]
    summ = _summaries(a=0, b=0)
    chosen = scheduling.place_many(weighers.get('pack'), cands, copy.deepcopy(summ),
                                   4, distinct_roots=False)
    assert [list(c.allocations) for c in chosen] == [['a'], ['a'], ['b'], ['b']]
    assert scheduling.place_many(weighers.get('pack'), cands, copy.deepcopy(summ), 5,
                                 distinct_roots=False) is None


def test_place_many_distinct_roots():
    cands = [_Cand('a', 1), _Cand('b', 2), _Cand('a2', 1)]
    summ = _summaries(a=0, b=0, a2=0)
    chosen = scheduling.place_many(weighers.get('spread'), cands, summ, 2,
                                   distinct_roots=True)
    assert sorted(list(c.allocations)[0] for c in chosen) == ['a', 'b']
    assert scheduling.place_many(weighers.get('spread'), cands,
                                 _summaries(a=0, b=0, a2=0), 3, True) is None


def test_sharing_providers_do_not_count_as_roots():
    cand = _Cand('a', 1)
    cand.providers.append(_P(9, sharing=True))
    assert scheduling._roots(cand) == {1}


def test_relaxed_request_drops_later_constraints():
    request = candidates_request.ResourceRequest(
        groups=[candidates_request.RequestGroup(resources={'VCPU': 1}, required=[{'A'}],
                                                member_of=[{'x'}], in_tree='t'),
                candidates_request.RequestGroup(suffix='_s', required=[{'B'}])],
        group_policy='isolate', root_required={'R'}, same_subtree=[['_s']])
    first = scheduling._relaxed(request, 'resources')
    assert len(first.groups) == 1 and first.groups[0].required == []
    assert first.group_policy == 'none' and first.root_required == set()
    traits = scheduling._relaxed(request, 'traits')
    assert traits.groups[0].required == [{'A'}] and traits.groups[0].member_of == []
    full = scheduling._relaxed(request, 'same_subtree')
    assert len(full.groups) == 2 and full.same_subtree == [['_s']]


def test_request_primitive_round_trip_is_json_safe():
    import json
    request = candidates_request.ResourceRequest(
        groups=[candidates_request.RequestGroup(resources={'VCPU': 1}, required=[{'A', 'B'}],
                                                forbidden={'C'}, member_of=[{'x'}],
                                                forbidden_aggs={'y'}, in_tree='t')],
        group_policy='none', limit=3, root_required={'R'}, root_forbidden={'S'},
        same_subtree=[['_a', '_b']])
    wire = json.loads(json.dumps(candidates_request.to_primitive(request)))
    assert candidates_request.from_primitive(wire) == request


def test_with_pending_adds_held_units_to_a_copy():
    summ = _summaries(a=1, b=0)
    adjusted = scheduling.with_pending(summ, {'a': {'VCPU': 2}, 'gone': {'VCPU': 9}})
    assert adjusted['a']['resources']['VCPU'] == {'capacity': 4, 'used': 3}
    assert adjusted['b']['resources']['VCPU'] == {'capacity': 4, 'used': 0}
    assert 'gone' not in adjusted
    assert summ['a']['resources']['VCPU']['used'] == 1


def test_best_first_puts_what_seems_full_last():
    cands = [_Cand('a', 1), _Cand('b', 2), _Cand('c', 3)]
    # 'a' is the emptiest by the database but claims in flight fill it
    summ = scheduling.with_pending(_summaries(a=0, b=1, c=2), {'a': {'VCPU': 4}})
    order = scheduling.best_first(weighers.get('spread'), cands, summ)
    assert [list(c.allocations)[0] for c in order] == ['b', 'c', 'a']
    order = scheduling.best_first(weighers.get('pack'), cands, summ)
    assert [list(c.allocations)[0] for c in order] == ['c', 'b', 'a']


def test_tree_key_from_a_root_candidate_only():
    class _Rp:
        def __init__(self, uuid, parent_id=None):
            self.uuid, self.parent_id = uuid, parent_id

    root, child = _Cand('r1', 1), _Cand('c1', 1)
    root.providers, child.providers = [_Rp('r1')], [_Rp('c1', parent_id=7)]
    assert scheduling._tree_key([root], {'r1'}) == 'r1'
    assert scheduling._tree_key([child], {'c1'}) is None


def test_subset_size_defaults_to_the_number_of_live_conductors(tmp_path):
    from tests import fixtures
    conf = fixtures.make_conf(tmp_path)
    live = [3]
    scheduler = scheduling.Scheduler(conf, None, lambda: live[0])
    assert conf.scheduler.host_subset_size == 0 and scheduler.subset_size == 3
    live[0] = 0
    assert scheduler.subset_size == 1
    conf.set_override('host_subset_size', 2, group='scheduler')
    assert scheduling.Scheduler(conf, None, lambda: 3).subset_size == 2
