"""objects.candidates.lone.whole: the whole-answer loop gives what Search.anchor gives.

Random forests of lone computes (some sharing one inventory dict, as the
index interns them), nested trees, sharing providers linked by aggregate,
and requests of the unsuffixed group with and without traits, aggregates,
root traits and a stop: the candidates (parts, groups, providers, shared
flag) and their order must be finder._unique's, tree by tree.
"""

import random

import pytest

from objects.candidates import candidate as cmod
from objects.candidates import finder, loader, lone, wire
from objects.candidates import plan as plan_mod
from objects.candidates import search as search_mod

NAMES = {0: 'VCPU', 1: 'MEMORY_MB', 2: 'DISK_GB'}
SHARES = 9                # the sharing trait's id in these forests


def _inv(rng, classes):
    inv = {}
    for rc_id in classes:
        total = rng.choice((4, 16, 64, 1024))
        used = rng.choice((0, 0, 1, total))
        inv[rc_id] = (1, rng.choice((total, 2)), rng.choice((1, 1, 2)), total - used, total,
                      used)
    return inv


def _forest(seed):
    rng = random.Random(seed)
    providers = {}
    shared_invs = [_inv(rng, (0, 1, 2)) for _ in range(3)]
    next_id = iter(range(1, 10000))
    for _ in range(rng.randint(5, 40)):
        root = next(next_id)
        kind = rng.random()
        traits = {t: 't%d' % t for t in rng.sample((1, 2, 3), rng.randint(0, 2))}
        aggs = frozenset(rng.sample((100, 101, 102), rng.randint(0, 2)))
        if kind < 0.6:
            inv = rng.choice(shared_invs) if rng.random() < 0.7 else _inv(rng, (0, 1, 2))
            if rng.random() < 0.2:
                inv = {k: v for k, v in inv.items() if k != 2}       # disk from sharing
            providers[root] = loader.Provider(root, 'u-%05d' % rng.randrange(99999), None,
                                              root, inv, traits, aggs)
        elif kind < 0.85:
            providers[root] = loader.Provider(root, 'u-%05d' % rng.randrange(99999), None,
                                              root, _inv(rng, (2,)), traits, aggs)
            for _ in range(rng.randint(1, 2)):
                child = next(next_id)
                providers[child] = loader.Provider(child, 'c-%05d' % child, root, root,
                                                   _inv(rng, (0, 1)), {}, frozenset())
        else:
            # storage mostly; some serve every class (their candidates are
            # shared only and come out of every tree they anchor on)
            classes = rng.choice(((2,), (2,), (0, 1, 2), (0, 1)))
            providers[root] = loader.Provider(root, 's-%05d' % root, None, root,
                                              _inv(rng, classes), {SHARES: 'SHARES', **traits},
                                              aggs or frozenset((100,)), sharing=True)
    sharing = {p.id: (p.root_id, p.aggs) for p in providers.values() if p.sharing}
    return rng, providers, sharing


def _plan(rng):
    amounts = tuple((rc_id, rng.choice((1, 2, 3))) for rc_id in (0, 1, 2)
                    if rc_id != 1 or rng.random() < 0.8)
    required = tuple(frozenset(rng.sample((1, 2, 3), 1)) for _ in range(rng.randint(0, 1)))
    member_of = tuple(frozenset((rng.choice((100, 101, 102)),))
                      for _ in range(int(rng.random() < 0.2)))
    group = plan_mod.Group('', amounts, required,
                           frozenset((3,)) if rng.random() < 0.2 else frozenset(),
                           member_of, frozenset())
    root_required = frozenset((1,)) if rng.random() < 0.15 else frozenset()
    return plan_mod.Plan([group], frozenset(rc for rc, _ in amounts), NAMES,
                         root_required=root_required, sharing_trait=SHARES)


def _search(plan, providers, sharing, by_root):
    search = search_mod.Search(plan, providers, sharing)
    if by_root:
        shared_aggs = {a for _, aggs in sharing.values() for a in aggs}
        links: dict = {}
        for p in providers.values():
            if p.aggs & shared_aggs:
                links.setdefault(p.root_id, set()).update(p.aggs & shared_aggs)
        search.link_by_root(links)
    else:
        links_list = [(p.root_id, a) for p in providers.values() for a in p.aggs]
        search.link(links_list)
    return search


def _seen(cands):
    return [(c.parts, c.groups, c.providers, c.shared_only) for c in cands]


@pytest.mark.parametrize('seed', range(60))
def test_whole_gives_the_anchors_candidates_in_order(seed):
    rng, providers, sharing = _forest(seed)
    for _ in range(4):
        plan = _plan(rng)
        by_root = rng.random() < 0.5
        stop = rng.choice((None, None, 1, 3, 10))
        roots = sorted(search_mod.Search(plan, providers, sharing).trees)
        want = finder._take(finder._unique(_search(plan, providers, sharing, by_root), roots),
                            stop)
        got = lone.whole(_search(plan, providers, sharing, by_root), roots, stop)
        assert got is not None
        assert _seen(got) == _seen(want), (seed, plan, stop)


def test_whole_leaves_other_requests_to_the_anchors():
    _, providers, sharing = _forest(1)
    group = plan_mod.Group('', ((0, 1),), (), frozenset(), (), frozenset())
    granular = plan_mod.Group('_G', ((1, 1),), (), frozenset(), (), frozenset())
    plan = plan_mod.Plan([group, granular], frozenset((0, 1)), NAMES)
    assert lone.whole(search_mod.Search(plan, providers, sharing), sorted(providers)) is None


def test_equal_inventories_are_judged_once():
    inv = {0: (1, 8, 1, 8, 8, 0)}
    calls = []

    class Inv(dict):
        def get(self, key, default=None):
            calls.append(key)
            return super().get(key, default)

    shared = Inv(inv)
    providers = {i: loader.Provider(i, 'u-%d' % i, None, i, shared) for i in range(1, 6)}
    group = plan_mod.Group('', ((0, 2),), (), frozenset(), (), frozenset())
    plan = plan_mod.Plan([group], frozenset((0,)), NAMES)
    got = lone.whole(search_mod.Search(plan, providers, {}), sorted(providers))
    assert [c.providers[0].id for c in got] == [1, 2, 3, 4, 5]
    assert calls == [0]


def test_a_lone_candidate_is_the_candidate_it_stands_for():
    p = loader.Provider(7, 'u-7', None, 7)
    res = (('VCPU', 1), ('MEMORY_MB', 64))
    lone_cand = cmod.Lone(p, res)
    cand = cmod.Candidate(((p, res),), (('', ('u-7',)),), (p,))
    for name in ('parts', 'groups', 'providers', 'shared_only', 'allocations', 'mappings',
                 'json', 'combo'):
        assert getattr(lone_cand, name) == getattr(cand, name), name
    assert lone_cand.key() == cand.key()
    for shape in (wire.LIST, wire.DICT, wire.MAPPINGS):
        assert wire.requests_json([lone_cand], shape) == wire.requests_json([cand], shape)


@pytest.mark.parametrize('uuids', [('u-1', 'u-2'), ('u-2', 'u-1')])
def test_a_pair_candidate_is_the_candidate_it_stands_for(uuids):
    a = loader.Provider(1, uuids[0], None, 1)
    b = loader.Provider(2, uuids[1], None, 2, sharing=True)
    ra, rb = (('VCPU', 1), ('MEMORY_MB', 64)), (('DISK_GB', 5),)
    pair = cmod.Pair(a, ra, b, rb, False)
    cand = cmod.Candidate(((a, ra), (b, rb)), (('', tuple(sorted(uuids))),), (a, b))
    for name in ('parts', 'groups', 'providers', 'shared_only', 'allocations', 'mappings',
                 'json', 'combo'):
        assert getattr(pair, name) == getattr(cand, name), name
    assert pair.key() == cand.key()
    for shape in (wire.LIST, wire.DICT, wire.MAPPINGS):
        assert wire.requests_json([pair], shape) == wire.requests_json([cand], shape)
