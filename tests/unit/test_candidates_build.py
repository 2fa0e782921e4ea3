"""objects.candidates.search: a candidate of the unsuffixed group spread over providers.

Its parts are in provider id order and its mapping's uuids in uuid order,
whichever order the combination names them in (the three-provider case
has a path of its own: two NUMA nodes and their compute).
"""

import itertools

import pytest

from objects.candidates import loader
from objects.candidates import plan as plan_mod
from objects.candidates import search as search_mod

NAMES = {0: 'VCPU', 1: 'MEMORY_MB', 2: 'DISK_GB'}
AMOUNTS = ((0, 1), (1, 256), (2, 10))
BIG = (1, 100000, 1, 100000, 100000, 0)


def _search(providers, sharing=None):
    group = plan_mod.Group('', AMOUNTS, (), frozenset(), (), frozenset())
    plan = plan_mod.Plan([group], frozenset(NAMES), NAMES)
    return search_mod.Search(plan, {p.id: p for p in providers}, sharing or {})


def _expected(combo):
    """(parts, groups, providers) of ``combo`` (a provider per class), by the contract."""
    per = {}
    for p, (rc_id, amount) in zip(combo, AMOUNTS):
        per.setdefault(p, []).append((NAMES[rc_id], amount))
    parts = tuple(sorted(((p, tuple(r)) for p, r in per.items()), key=lambda x: x[0].id))
    return (parts, (('', tuple(sorted(p.uuid for p in per))),),
            tuple(p for p, _ in parts))


@pytest.mark.parametrize('ids', list(itertools.permutations((10, 20, 30))))
@pytest.mark.parametrize('uuids', [('u-a', 'u-b', 'u-c'), ('u-c', 'u-a', 'u-b')])
def test_three_providers_ordered_by_id_and_uuid(ids, uuids):
    inv = {0: BIG, 1: BIG, 2: BIG}
    ps = [loader.Provider(rp_id, uuid, None, 10, inv) for rp_id, uuid in zip(ids, uuids)]
    search = _search(ps)
    for combo in itertools.permutations(ps):          # VCPU, MEMORY_MB, DISK_GB each
        cand = search._build_single(combo)
        assert (cand.parts, cand.groups, cand.providers) == _expected(combo), combo
        assert not cand.shared_only


def test_two_and_three_providers_of_sharing_ones_only_are_shared_only():
    inv = {0: BIG, 1: BIG, 2: BIG}
    ps = [loader.Provider(i, 'u-%d' % i, None, i, inv, sharing=True) for i in (3, 1, 2)]
    search = _search(ps)
    assert search._build_single((ps[0], ps[1], ps[2])).shared_only
    assert search._build_single((ps[0], ps[1], ps[1])).shared_only
    ps[2].sharing = False
    assert not search._build_single((ps[0], ps[1], ps[2])).shared_only
    assert (search._build_single((ps[2], ps[0], ps[1])).parts
            == _expected((ps[2], ps[0], ps[1]))[0])
