"""The trait and class index (objects/candidates/features) changes no answer.

Nested trees, a sharing provider with a trait of its own, required /
forbidden / any-of / root_required traits and granular groups: every
request's answer (candidates in order, summaries) with the index's
narrowing equals the one of a search that visits every tree, and the
loader's (``Options(indexed=False)``), unlimited, limited and
breadth-first, in one snapshot; then again after each trait, inventory,
aggregate and tree write, with the carried entries equal to entries built
afresh.
"""

import contextlib
import uuid as uuidlib

from db import api as db_api
from objects.candidates import features as features_mod
from objects.candidates import finder
from objects.candidates import request as rg
from objects.placement import aggregate as agg_obj
from objects.placement import inventory as inv_obj
from objects.placement import provider_trait as trait_obj
from objects.placement import resource_provider as rp_obj
from tests.functional import candidate_helpers as helpers

AGG = [str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, 'features-agg-%d' % i)) for i in range(2)]


def _group(suffix='', resources=None, required=(), forbidden=(), **kw):
    return rg.RequestGroup(suffix=suffix, resources=resources or {},
                           required=[set(s) for s in required], forbidden=set(forbidden), **kw)


REQUESTS = [
    # a required trait: on a lone compute, on a child, on a root
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1, 'DISK_GB': 10},
                                      required=[{'CUSTOM_SSD'}])]),
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1}, required=[{'CUSTOM_ROOT'}])]),
    # any-of, and any-of with a trait most trees have
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1},
                                      required=[{'CUSTOM_SSD', 'CUSTOM_HDD'}])]),
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1},
                                      required=[{'CUSTOM_SSD', 'CUSTOM_COMMON'}])]),
    # the sharing provider's own trait: its disk must be in the candidate
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1, 'DISK_GB': 10},
                                      required=[{'CUSTOM_FAST'}])]),
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1}, required=[{'CUSTOM_FAST'}])]),
    # forbidden, and required with forbidden
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1}, forbidden={'CUSTOM_SSD'})]),
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1}, required=[{'CUSTOM_COMMON'}],
                                      forbidden={'CUSTOM_HDD'})]),
    # root_required (1.35), with root_forbidden
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1})],
                       root_required={'CUSTOM_ROOT'}),
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1, 'DISK_GB': 5})],
                       root_required={'CUSTOM_COMMON'}, root_forbidden={'CUSTOM_ROOT'}),
    # granular groups, a class few trees have, same_subtree with a resourceless group
    rg.ResourceRequest(groups=[_group('_A', {'VCPU': 1}, required=[{'CUSTOM_SSD'}]),
                               _group('_B', {'SRIOV_NET_VF': 1},
                                      required=[{'CUSTOM_PHYSNET'}])],
                       group_policy='none'),
    rg.ResourceRequest(groups=[_group('_A', {'VCPU': 1}),
                               _group('_B', {'SRIOV_NET_VF': 1}),
                               _group('_R', required=[{'CUSTOM_ROOT'}])],
                       group_policy='isolate', same_subtree=[['_A', '_B', '_R']]),
    # a trait no provider with inventory has
    rg.ResourceRequest(groups=[_group(resources={'VCPU': 1}, required=[{'CUSTOM_SPARE'}])]),
]
OPTIONS = [finder.Options(), finder.Options(limit=2), finder.Options(limit=1),
           finder.Options(max_candidates=3, breadth_first=True),
           finder.Options(nested_aware=False)]


@contextlib.contextmanager
def _every_tree():
    """The index's searches visit every tree (no narrowing)."""
    cls = features_mod.Features
    roots, narrowed = cls.roots, cls.filter
    cls.roots = lambda self, state, plan: state.roots
    cls.filter = lambda self, state, plan, roots: roots
    try:
        yield
    finally:
        cls.roots, cls.filter = roots, narrowed


@db_api.reader
def _compare(ctx):
    """Narrowed, every-tree and loaded answers to every request, one snapshot."""
    if not ctx.db.is_sqlite:
        ctx.session.connection(execution_options={'isolation_level': 'REPEATABLE READ'})
    non_empty = 0
    for request in REQUESTS:
        for opts in OPTIONS:
            narrowed = helpers.encoded(finder.get_candidates(ctx, request, opts))
            with _every_tree():
                every = helpers.encoded(finder.get_candidates(ctx, request, opts))
            loaded = helpers.encoded(finder.get_candidates(
                ctx, request, finder.Options(**{**vars(opts), 'indexed': False})))
            assert narrowed == every == loaded, (request, opts)
            non_empty += bool(narrowed['allocation_requests'])
    return non_empty


def _gen(ctx, uuid):
    return inv_obj.provider_generation(ctx, uuid)


def _traits(ctx, uuid, names):
    trait_obj.set_traits(ctx, uuid, _gen(ctx, uuid), names)


def _topology(ctx):
    # every custom trait exists from here on (TraitNotFound otherwise)
    spare = helpers.add_provider(ctx, name='spare', traits=[
        'CUSTOM_SSD', 'CUSTOM_HDD', 'CUSTOM_ROOT', 'CUSTOM_COMMON', 'CUSTOM_FAST',
        'CUSTOM_PHYSNET', 'CUSTOM_SPARE'])
    _traits(ctx, spare, ['CUSTOM_SPARE'])
    p = {'spare': spare}
    p['cn0'] = helpers.add_provider(ctx, name='cn0', inventory={'VCPU': 8, 'DISK_GB': 100},
                                    traits=['CUSTOM_SSD', 'CUSTOM_COMMON'])
    p['cn1'] = helpers.add_provider(ctx, name='cn1', inventory={'VCPU': 8, 'DISK_GB': 100},
                                    traits=['CUSTOM_HDD', 'CUSTOM_COMMON'])
    p['cn2'] = helpers.add_provider(ctx, name='cn2', inventory={'VCPU': 8, 'DISK_GB': 100},
                                    traits=['CUSTOM_COMMON'])
    p['root'] = helpers.add_provider(ctx, name='root', inventory={'DISK_GB': 50},
                                     traits=['CUSTOM_ROOT', 'CUSTOM_COMMON'])
    p['numa'] = helpers.add_provider(ctx, name='numa', parent=p['root'],
                                     inventory={'VCPU': 4}, traits=['CUSTOM_SSD'])
    p['nic'] = helpers.add_provider(ctx, name='nic', parent=p['root'],
                                    inventory={'SRIOV_NET_VF': 4}, traits=['CUSTOM_PHYSNET'])
    p['diskless'] = helpers.add_provider(ctx, name='diskless', inventory={'VCPU': 8},
                                         traits=['CUSTOM_COMMON'], aggregates=[AGG[0]])
    p['shared'] = helpers.add_provider(ctx, name='shared', inventory={'DISK_GB': 500},
                                       traits=[helpers.SHARES, 'CUSTOM_FAST'],
                                       aggregates=[AGG[0]])
    return p


def test_narrowing_changes_no_answer_under_writes(berth, ctx):
    p = _topology(ctx)
    assert _compare(ctx) > 0
    entries = helpers.features_are_fresh(ctx)
    # SSD, HDD, ROOT, COMMON, FAST, PHYSNET, SPARE; VCPU, DISK_GB, SRIOV_NET_VF
    assert sorted(kind for kind, _ in entries) == [features_mod.CLASS] * 3 + [
        features_mod.TRAIT] * 7
    writes = [
        lambda: _traits(ctx, p['numa'], []),                         # a child loses it
        lambda: _traits(ctx, p['cn1'], ['CUSTOM_SSD', 'CUSTOM_HDD']),  # a compute gains it
        lambda: _traits(ctx, p['shared'], [helpers.SHARES]),         # the sharing one
        lambda: _traits(ctx, p['shared'], [helpers.SHARES, 'CUSTOM_FAST']),
        lambda: _traits(ctx, p['diskless'], ['CUSTOM_FAST']),       # the anchor itself
        lambda: agg_obj.set_for_provider(ctx, p['diskless'], [AGG[1]],
                                         _gen(ctx, p['diskless'])),  # unlinked
        lambda: agg_obj.set_for_provider(ctx, p['diskless'], [AGG[0]],
                                         _gen(ctx, p['diskless'])),
        lambda: _traits(ctx, p['root'], ['CUSTOM_COMMON']),          # root_required
        lambda: _traits(ctx, p['numa'], ['CUSTOM_SSD', 'CUSTOM_ROOT']),
        lambda: rp_obj.update(ctx, p['numa'], 'numa', parent_uuid=p['cn2'],
                              allow_reparent=True),                  # moves tree, trait along
        lambda: rp_obj.update(ctx, p['numa'], 'numa', parent_uuid=None,
                              allow_reparent=True),                  # a tree of its own
        lambda: rp_obj.update(ctx, p['numa'], 'numa', parent_uuid=p['root'],
                              allow_reparent=True),
        lambda: inv_obj.replace_all(ctx, p['nic'], _gen(ctx, p['nic']), [],
                                    allow_zero_capacity=False),     # the class goes
        lambda: inv_obj.replace_all(ctx, p['nic'], _gen(ctx, p['nic']),
                                    [inv_obj.Inventory('SRIOV_NET_VF', 4)],
                                    allow_zero_capacity=False),
        lambda: rp_obj.destroy(ctx, p['cn0']),
        lambda: helpers.add_provider(ctx, name='cn3', inventory={'VCPU': 8, 'DISK_GB': 100},
                                     traits=['CUSTOM_SSD', 'CUSTOM_SPARE']),
        lambda: helpers.add_provider(ctx, name='nic2', parent=p['cn2'],
                                     inventory={'SRIOV_NET_VF': 2}, traits=['CUSTOM_PHYSNET']),
        lambda: _traits(ctx, p['spare'], []),
    ]
    for write in writes:
        write()
        _compare(ctx)
        assert set(helpers.features_are_fresh(ctx)) >= set(entries)   # carried, none lost


def test_most_trees_having_a_feature_keeps_those_lacking_it(berth, ctx):
    """A feature most trees have is kept as the trees lacking it, and stays exact."""
    helpers.add_provider(ctx, name='seed', traits=['CUSTOM_COMMON', 'CUSTOM_RARE'])
    many = [helpers.add_provider(ctx, name='cn%d' % i, inventory={'VCPU': 4},
                                 traits=['CUSTOM_COMMON'] + (['CUSTOM_RARE'] if i == 0 else []))
            for i in range(6)]
    request = rg.ResourceRequest(groups=[_group(resources={'VCPU': 1},
                                                required=[{'CUSTOM_COMMON'}])])
    rare = rg.ResourceRequest(groups=[_group(resources={'VCPU': 1},
                                             required=[{'CUSTOM_RARE'}])])
    for req in (request, rare):
        finder.get_candidates(ctx, req, finder.Options())
    entries = helpers.features_are_fresh(ctx)
    kinds = {has for has, _ in entries.values()}
    assert kinds == {True, False}
    _traits(ctx, many[1], [])
    _traits(ctx, many[2], ['CUSTOM_RARE'])
    helpers.features_are_fresh(ctx)
    for req in (request, rare):
        found = finder.get_candidates(ctx, req, finder.Options())
        with _every_tree():
            every = finder.get_candidates(ctx, req, finder.Options())
        assert helpers.encoded(found) == helpers.encoded(every)
    assert len(finder.get_candidates(ctx, request, finder.Options()).candidates) == 4
    assert len(finder.get_candidates(ctx, rare, finder.Options()).candidates) == 2
