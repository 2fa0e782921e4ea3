"""objects.candidates.summary: the summaries' JSON pieces are the JSON of their dicts.

Summaries.json_pieces writes each provider's summary from fragments shared
by providers with the same inventory or trait set object (the index's
interning); Summaries.as_dict builds the dicts.  For every microversion's
flags the two must give the same bytes, key order included.
"""

import itertools

import orjson
import pytest

from objects.candidates import candidate, loader, summary

NAMES = {0: 'VCPU', 1: 'MEMORY_MB', 2: 'DISK_GB', 7: 'NET_BW_EGR_KILOBIT_PER_SEC'}
COMPUTE = {0: (1, 32, 1, 30, 32, 2), 1: (128, 8192, 128, 8192, 8192, 0)}
# the class order of a provider's inventory is its summary's: not by class id here
DISKFIRST = {2: (1, 100, 1, 100, 100, 0), 0: (1, 8, 1, 8, 8, 0)}
STORAGE = {2: (5, 8192, 1, 8000, 8192, 192)}
NIC = {7: (1, 10000, 1, 10000, 10000, 0)}
AVX = {3: 'HW_CPU_X86_AVX2', 1: 'HW_CPU_X86_SSE2'}      # by trait id: SSE2 first
SHARES = {9: 'MISC_SHARES_VIA_AGGREGATE'}


def _region():
    """{id: Provider}: lone computes sharing one inventory and trait dict, a nested
    tree (root, NUMA child, NIC grandchild), sharing storage, a provider without
    traits or inventory, and one whose root and parent are not among them."""
    P = loader.Provider
    ps = [P(1, 'c-1', None, 1, COMPUTE, AVX), P(2, 'c-2', None, 2, COMPUTE, AVX),
          P(3, 'c-3', None, 3, DISKFIRST, {}),
          P(10, 'root-10', None, 10, STORAGE, AVX), P(11, 'numa-11', 10, 10, COMPUTE, {}),
          P(12, 'nic-12', 11, 10, NIC, {5: 'CUSTOM_"QUOTE\\D'}),
          P(20, 'share-20', None, 20, STORAGE, SHARES, sharing=True),
          P(30, 'bare-30', None, 30),
          P(40, 'orphan-40', 41, 42, COMPUTE, AVX)]
    return {p.id: p for p in ps}


def _candidates(providers):
    p = providers
    res = (('VCPU', 1), ('MEMORY_MB', 256))
    return [candidate.Candidate(((p[1], res),), (('', ('c-1',)),), (p[1],)),
            candidate.Candidate(((p[3], (('VCPU', 1),)), (p[20], (('DISK_GB', 10),))),
                                (('', ('c-3', 'share-20')),), (p[3], p[20])),
            candidate.Candidate(((p[11], res), (p[12], (('NET_BW_EGR_KILOBIT_PER_SEC', 5),))),
                                (('', ('numa-11',)), ('_NIC', ('nic-12',))), (p[11], p[12])),
            candidate.Candidate(((p[40], res),), (('', ('orphan-40',)),), (p[40],)),
            candidate.Candidate(((p[30], ()),), (('', ('bare-30',)),), (p[30],))]


def _trees(providers):
    trees = {}
    for rp_id in sorted(providers):
        trees.setdefault(providers[rp_id].root_id, []).append(providers[rp_id])
    return trees


@pytest.mark.parametrize('whole_trees,all_classes,traits,tree_uuids',
                         list(itertools.product((False, True), repeat=4)))
@pytest.mark.parametrize('ordered', [False, True], ids=['set', 'index-order'])
def test_pieces_are_the_json_of_the_dicts(whole_trees, all_classes, traits, tree_uuids,
                                          ordered):
    providers = _region()
    flags = dict(whole_trees=whole_trees, all_classes=all_classes, traits=traits,
                 tree_uuids=tree_uuids)
    if ordered:
        # the index's providers by id: most of them in the answer's trees, so the
        # whole trees are picked from them (chosen())
        flags['ordered'] = [providers[rp_id] for rp_id in sorted(providers)]

    def made():
        return summary.Summaries(_candidates(providers), providers, _trees(providers),
                                 NAMES, {0, 1}, **flags)

    pieces = made().json_pieces()
    assert b'{%s}' % b','.join(pieces) == orjson.dumps(made().as_dict())
    # kept on the providers: the same bytes again, from the memo
    assert made().json_pieces() == pieces
    assert len(pieces) == (8 if whole_trees else 7)
    plain = summary.Summaries(_candidates(providers), providers, _trees(providers), NAMES,
                              {0, 1}, whole_trees=whole_trees, all_classes=all_classes,
                              traits=traits, tree_uuids=tree_uuids)
    assert made().chosen() == plain.chosen()     # numa-11's whole tree: root-10 too


def test_the_shared_fragments_follow_each_providers_own_values():
    providers = _region()
    got = orjson.loads(b'{%s}' % b','.join(summary.Summaries(
        _candidates(providers), providers, _trees(providers), NAMES, {0, 1},
        whole_trees=True, all_classes=True, traits=True, tree_uuids=True).json_pieces()))
    assert list(got['c-3']['resources']) == ['DISK_GB', 'VCPU']      # its own order
    assert got['c-1']['traits'] == ['HW_CPU_X86_SSE2', 'HW_CPU_X86_AVX2']   # by trait id
    assert got['c-1']['root_provider_uuid'] == 'c-1'
    assert got['nic-12'] == {
        'resources': {'NET_BW_EGR_KILOBIT_PER_SEC': {'capacity': 10000, 'used': 0}},
        'traits': ['CUSTOM_"QUOTE\\D'], 'parent_provider_uuid': 'numa-11',
        'root_provider_uuid': 'root-10'}
    # a root and parent not among the providers: itself, and null
    assert got['orphan-40']['root_provider_uuid'] == 'orphan-40'
    assert got['orphan-40']['parent_provider_uuid'] is None
    assert got['bare-30'] == {'resources': {}, 'traits': [], 'parent_provider_uuid': None,
                              'root_provider_uuid': 'bare-30'}


def test_pieces_some_kept_from_an_earlier_answer():
    # a smaller answer first keeps the pieces of its providers; the larger one
    # then makes only the others, and both are still the JSON of the dicts
    providers = _region()
    flags = dict(whole_trees=True, all_classes=True, traits=True, tree_uuids=True,
                 ordered=[providers[rp_id] for rp_id in sorted(providers)])
    first = summary.Summaries(_candidates(providers)[:2], providers, _trees(providers),
                              NAMES, {0, 1}, **flags)
    assert b'{%s}' % b','.join(first.json_pieces()) == orjson.dumps(first.as_dict())
    kept = {p.id for p in providers.values() if p.memo}
    assert kept == {1, 3, 20}
    whole = summary.Summaries(_candidates(providers), providers, _trees(providers),
                              NAMES, {0, 1}, **flags)
    assert b'{%s}' % b','.join(whole.json_pieces()) == orjson.dumps(whole.as_dict())
    # and what the larger one kept answers a third time
    again = summary.Summaries(_candidates(providers), providers, _trees(providers),
                              NAMES, {0, 1}, **flags)
    assert again.json_pieces() == whole.json_pieces()
    assert b'{%s}' % b','.join(again.json_pieces()) == orjson.dumps(again.as_dict())
