"""objects.candidates.wire: the JSON of allocation requests in every shape."""

import json

from objects.candidates import loader, search, wire


def _candidates():
    a = loader.Provider(1, 'uuid-a', None, 1)
    b = loader.Provider(2, 'uuid-b', None, 2)
    res = (('VCPU', 1), ('MEMORY_MB', 256))
    return [
        search.Candidate(((a, res),), (('', ('uuid-a',)),), (a,)),
        search.Candidate(((a, res), (b, (('DISK_GB', 10),))),
                         (('', ('uuid-a', 'uuid-b')), ('_X', ('uuid-b',))), (a, b)),
    ]


def test_dict_and_mappings_shapes_match_the_candidates_dicts():
    cands = _candidates()
    got = json.loads(wire.requests_json(cands, wire.MAPPINGS))
    assert got == [{'allocations': c.allocations, 'mappings': c.mappings} for c in cands]
    got = json.loads(wire.requests_json(cands, wire.DICT))
    assert got == [{'allocations': c.allocations} for c in cands]


def test_list_shape_before_1_12():
    got = json.loads(wire.requests_json(_candidates(), wire.LIST))
    assert got[1] == {'allocations': [
        {'resource_provider': {'uuid': 'uuid-a'}, 'resources': {'VCPU': 1, 'MEMORY_MB': 256}},
        {'resource_provider': {'uuid': 'uuid-b'}, 'resources': {'DISK_GB': 10}}]}


def test_no_candidates():
    for shape in (wire.LIST, wire.DICT, wire.MAPPINGS):
        assert json.loads(wire.requests_json([], shape)) == []
