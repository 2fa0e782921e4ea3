"""Property test: the candidate engine against a brute-force reading of 3.8.

Random small trees (inventories, usage, traits, aggregates, sharing) and
random requests; the engine's answer must equal, as sets, what a naive
enumerator written straight from the contract produces, allocation requests
and provider summaries alike.  Limited and breadth-first searches must be
prefixes/subsets of the full answer.
"""

import itertools
import uuid as uuidlib

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
import pytest

from common import context as berth_context
from objects import database
from objects.candidates import finder as ac
from objects.candidates.request import RequestGroup, ResourceRequest
from tests import fixtures
from tests.functional import candidate_helpers as helpers

CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
TRAITS = ('CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C')
AGGS = tuple(str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'agg%d' % i)) for i in range(3))
SHARES = helpers.SHARES


@pytest.fixture(scope='module')
def pctx(tmp_path_factory):
    state = tmp_path_factory.mktemp('candidates-property')
    conf = fixtures.make_conf(state)
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf, scope='module')
    db = database.open_database(conf)
    ctx = berth_context.admin_context(db)
    helpers.add_provider(ctx, name='seed', traits=TRAITS)   # create the custom traits
    yield ctx
    db.dispose()


# -- strategies -------------------------------------------------------------

_inventory = st.fixed_dictionaries({
    'total': st.integers(2, 10), 'reserved': st.sampled_from([0, 0, 1]),
    'min_unit': st.sampled_from([1, 1, 1, 2]), 'max_unit': st.integers(2, 10),
    'step_size': st.sampled_from([1, 1, 1, 2]),
    'allocation_ratio': st.sampled_from([1.0, 1.0, 1.5])})


def _sometimes(strategy, default):
    """``strategy`` a quarter of the time, else ``default`` (keeps answers non-empty)."""
    return st.one_of(st.just(default), st.just(default), st.just(default), strategy)


@st.composite
def providers(draw):
    count = draw(st.integers(1, 5))
    out = []
    for i in range(count):
        parent = draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None
        inv = draw(st.dictionaries(st.sampled_from(CLASSES), _inventory, min_size=1,
                                   max_size=3))
        used = {rc: draw(st.integers(0, 3)) for rc in inv if draw(st.booleans())}
        traits = set(draw(st.lists(st.sampled_from(TRAITS), max_size=2)))
        if draw(st.integers(0, 3)) == 0:
            traits.add(SHARES)
        aggs = set(draw(st.lists(st.sampled_from(AGGS), max_size=2)))
        out.append({'parent': parent, 'inventory': inv, 'used': used,
                    'traits': sorted(traits), 'aggregates': sorted(aggs)})
    return out


_amounts = st.dictionaries(st.sampled_from(CLASSES), st.integers(1, 2), max_size=2)
_trait_sets = _sometimes(st.lists(st.frozensets(st.sampled_from(TRAITS), min_size=1,
                                                max_size=2), min_size=1, max_size=2), [])
_agg_sets = _sometimes(st.lists(st.frozensets(st.sampled_from(AGGS), min_size=1,
                                              max_size=2), min_size=1, max_size=1), [])


@st.composite
def group(draw, suffix, n_providers):
    g = RequestGroup(suffix=suffix, resources=draw(_amounts))
    g.required = [set(s) for s in draw(_trait_sets)]
    g.forbidden = set(draw(_sometimes(st.lists(st.sampled_from(TRAITS), max_size=1), [])))
    g.member_of = [set(s) for s in draw(_agg_sets)]
    g.forbidden_aggs = set(draw(_sometimes(st.lists(st.sampled_from(AGGS), max_size=1),
                                           [])))
    if draw(st.integers(0, 4)) == 0:
        g.in_tree = draw(st.integers(0, n_providers - 1))   # index; made a uuid later
    return g


@st.composite
def requests(draw, n_providers):
    groups = [draw(group('', n_providers))]
    for suffix in ('1', '2')[:draw(st.integers(0, 2))]:
        groups.append(draw(group(suffix, n_providers)))
    groups = [g for g in groups if g.resources or g.suffix]
    if not any(g.resources for g in groups):
        groups = [RequestGroup(suffix='', resources={'VCPU': 1})] + groups
    suffixes = [g.suffix for g in groups if g.suffix]
    same = []
    if suffixes and draw(st.booleans()):
        same = [draw(st.lists(st.sampled_from(suffixes), min_size=1, max_size=2,
                              unique=True))]
    return ResourceRequest(
        groups=groups, group_policy=draw(st.sampled_from(['none', 'isolate'])),
        root_required=set(draw(_sometimes(st.lists(st.sampled_from(TRAITS), max_size=1),
                                          []))),
        root_forbidden=set(draw(_sometimes(st.lists(st.sampled_from(TRAITS[2:]),
                                                    max_size=1), []))),
        same_subtree=same)


# -- the brute-force reference ------------------------------------------------

def _capacity(inv):
    return int((inv['total'] - inv['reserved']) * inv['allocation_ratio'])


def _serves(p, rc, amount):
    inv = p['inventory'].get(rc)
    if inv is None:
        return False
    return (inv['min_unit'] <= amount <= inv['max_unit'] and amount % inv['step_size'] == 0
            and p['used'].get(rc, 0) + amount <= _capacity(inv))


def reference(provs, req, nested_aware):
    """Every candidate of 3.8, by enumeration: set of (allocations, mappings)."""
    by_uuid = {p['uuid']: p for p in provs}
    roots = [p for p in provs if p['parent'] is None]

    def root_of(p):
        return by_uuid[p['root']]

    def sharing(p):
        return SHARES in p['traits']

    def anchors(p):
        found = {p['root']}
        if sharing(p):
            found |= {q['root'] for q in provs if set(q['aggregates']) & set(p['aggregates'])}
        return found

    def in_tree_ok(g, p):
        return g.in_tree is None or (g.in_tree in by_uuid and
                                     p['root'] == by_uuid[g.in_tree]['root'])

    def granular_ok(g, p):
        t, a = set(p['traits']), set(p['aggregates'])
        return (in_tree_ok(g, p) and all(s & t for s in g.required)
                and not (g.forbidden & t) and all(s & a for s in g.member_of)
                and not (g.forbidden_aggs & a)
                and all(_serves(p, rc, n) for rc, n in g.resources.items()))

    def unsuffixed_ok(g, p, rc, n):
        a = set(p['aggregates'])
        if not sharing(p):
            a |= set(root_of(p)['aggregates'])
        return (in_tree_ok(g, p) and _serves(p, rc, n)
                and not (g.forbidden & set(p['traits']))
                and all(s & a for s in g.member_of) and not (g.forbidden_aggs & a))

    def ancestors(p):
        line = []
        while p is not None:
            line.append(p['uuid'])
            p = by_uuid.get(p['parent_uuid'])
        return line

    has_trees = any(p['parent'] is not None for p in provs)
    results = set()
    for root in roots:
        t = set(root['traits'])
        if not (req.root_required <= t) or (req.root_forbidden & t):
            continue
        usable = [p for p in provs if root['uuid'] in anchors(p)]
        per_group = []
        for g in req.groups:
            if g.suffix:
                per_group.append([(p,) for p in usable if granular_ok(g, p)])
                continue
            classes = sorted(g.resources)
            opts = []
            for combo in itertools.product(usable, repeat=len(classes)):
                if not all(unsuffixed_ok(g, p, rc, g.resources[rc])
                           for p, rc in zip(combo, classes)):
                    continue
                traits = set().union(*(set(p['traits']) for p in combo))
                if all(s & traits for s in g.required):
                    opts.append(combo)
            per_group.append(opts)
        for choice in itertools.product(*per_group):
            granular = [c[0]['uuid'] for g, c in zip(req.groups, choice) if g.suffix]
            if req.group_policy == 'isolate' and len(set(granular)) != len(granular):
                continue
            index = {g.suffix: c for g, c in zip(req.groups, choice)}
            ok = True
            for names in req.same_subtree:
                chosen = {index[s][0]['uuid'] for s in names}
                if not any(all(top in ancestors(by_uuid[u]) for u in chosen)
                           for top in chosen):
                    ok = False
            totals, mappings = {}, {}
            for g, c in zip(req.groups, choice):
                classes = sorted(g.resources)
                if g.suffix:
                    mappings[g.suffix] = (c[0]['uuid'],)
                    for rc in classes:
                        key = (c[0]['uuid'], rc)
                        totals[key] = totals.get(key, 0) + g.resources[rc]
                else:
                    mappings[''] = tuple(sorted({p['uuid'] for p in c}))
                    for p, rc in zip(c, classes):
                        key = (p['uuid'], rc)
                        totals[key] = totals.get(key, 0) + g.resources[rc]
            for (u, rc), n in totals.items():
                inv = by_uuid[u]['inventory'][rc]
                if n > inv['max_unit'] or by_uuid[u]['used'].get(rc, 0) + n > _capacity(inv):
                    ok = False
            used_providers = {u for u, _ in totals}
            if not nested_aware and has_trees:
                if len({by_uuid[u]['root'] for u in used_providers}) != len(used_providers):
                    ok = False
            if not ok:
                continue
            allocations = {}
            for (u, rc), n in totals.items():
                allocations.setdefault(u, {})[rc] = n
            results.add((_freeze_allocs(allocations), tuple(sorted(mappings.items()))))
    return results


def _freeze_allocs(allocations):
    return tuple(sorted((u, tuple(sorted(r.items()))) for u, r in allocations.items()))


def reference_summaries(provs, results, requested, flags):
    by_uuid = {p['uuid']: p for p in provs}
    names = set()
    for allocs, mappings in results:
        names |= {u for u, _ in allocs}
        for _, us in mappings:
            names |= set(us)
    if flags['trees']:
        roots = {by_uuid[u]['root'] for u in names}
        names = {p['uuid'] for p in provs if p['root'] in roots}
    else:
        names = {u for allocs, _ in results for u, _ in allocs}
    out = {}
    for u in names:
        p = by_uuid[u]
        res = {rc: {'capacity': _capacity(inv), 'used': p['used'].get(rc, 0)}
               for rc, inv in p['inventory'].items()
               if flags['all_classes'] or rc in requested}
        s = {'resources': res}
        if flags['traits']:
            # trait id order: the standard SHARES, then CUSTOM_A, _B, _C as made
            s['traits'] = sorted(p['traits'], key=lambda t: (t.startswith('CUSTOM_'), t))
        if flags['trees']:
            s['parent_provider_uuid'] = p['parent_uuid']
            s['root_provider_uuid'] = p['root']
        out[u] = s
    return out


# -- the test ---------------------------------------------------------------------

def _write(ctx, provs):
    with ctx.db.writer(ctx):
        _write_rows(ctx, provs)


def _write_rows(ctx, provs):
    helpers.clear(ctx)
    for i, p in enumerate(provs):
        p['uuid'] = str(uuidlib.UUID(int=i + 1))
        p['parent_uuid'] = provs[p['parent']]['uuid'] if p['parent'] is not None else None
        p['root'] = provs[p['parent']]['root'] if p['parent'] is not None else p['uuid']
        helpers.add_provider(ctx, name='p%d' % i, parent=p['parent_uuid'],
                             inventory=p['inventory'], traits=p['traits'],
                             aggregates=p['aggregates'], uuid=p['uuid'], used=p['used'])


def _engine(ctx, req, **kw):
    result = ac.get_candidates(ctx, req, ac.Options(**kw))
    found = [(_freeze_allocs({u: a['resources'] for u, a in c.allocations.items()}),
              tuple(sorted((s, tuple(sorted(v))) for s, v in c.mappings.items())))
             for c in result.candidates]
    return found, result.summaries


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_engine_matches_reference(pctx, data, monkeypatch):
    provs = data.draw(providers())
    req = data.draw(requests(len(provs)))
    for g in req.groups:
        if g.in_tree is not None:
            g.in_tree = str(uuidlib.UUID(int=g.in_tree + 1))
    nested_aware = data.draw(st.booleans())
    flags = {'traits': data.draw(st.booleans()), 'all_classes': data.draw(st.booleans()),
             'trees': nested_aware}
    _write(pctx, provs)
    expected = reference(provs, req, nested_aware)
    event('candidates: %s' % (len(expected) if len(expected) < 3 else 'many'))
    event('groups: %d' % len(req.groups))
    found, summaries = _engine(
        pctx, req, nested_aware=nested_aware, summary_traits=flags['traits'],
        summary_all_classes=flags['all_classes'], summary_trees=flags['trees'])
    assert len(found) == len(set(found)), 'duplicate candidates'
    assert set(found) == expected
    requested = {rc for g in req.groups for rc in g.resources}
    assert summaries == reference_summaries(provs, expected, requested, flags)
    # the same from the SQL loader instead of the provider index
    loaded, loaded_summaries = _engine(
        pctx, req, indexed=False, nested_aware=nested_aware, summary_traits=flags['traits'],
        summary_all_classes=flags['all_classes'], summary_trees=flags['trees'])
    assert (loaded, loaded_summaries) == (found, summaries)
    # the trait/class index carried from the last example's providers is exact
    helpers.features_are_fresh(pctx)

    # the capacity rule shared with GET /resource_providers?resources=
    amounts = req.groups[0].resources
    if amounts:
        by_id = {p['uuid']: p for p in provs}
        alone = {u for u, p in by_id.items()
                 if all(_serves(p, rc, n) for rc, n in amounts.items())}
        ids = ac.providers_with_capacity(pctx, amounts)
        assert len(ids) == len(alone)

    # limit: the first N of the unlimited order, read in small batches
    monkeypatch.setattr(ac, '_FIRST_BATCH', 1)
    limit = data.draw(st.integers(1, 4))
    limited, _ = _engine(pctx, req, nested_aware=nested_aware, limit=limit)
    assert limited == found[:limit]
    limited, _ = _engine(pctx, req, nested_aware=nested_aware, limit=limit, indexed=False)
    assert limited == found[:limit]
    # max_allocation_candidates, depth-first: the same prefix
    first, _ = _engine(pctx, req, nested_aware=nested_aware, max_candidates=limit)
    assert first == found[:limit]
    # max_allocation_candidates, breadth-first: a subset of the right size
    some, _ = _engine(pctx, req, nested_aware=nested_aware, max_candidates=limit,
                      breadth_first=True)
    assert len(some) == min(limit, len(found)) and set(some) <= expected
