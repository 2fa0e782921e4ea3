"""objects.candidates.wire: the JSON of allocation requests in every shape."""

import ctypes
import ctypes.util
import json
import os
import sys

import orjson
import pytest

from objects.candidates import candidate, granular, loader, wire


def _candidates():
    a = loader.Provider(1, 'uuid-a', None, 1)
    b = loader.Provider(2, 'uuid-b', None, 2)
    res = (('VCPU', 1), ('MEMORY_MB', 256))
    return [
        candidate.Candidate(((a, res),), (('', ('uuid-a',)),), (a,)),
        candidate.Candidate(((a, res), (b, (('DISK_GB', 10),))),
                         (('', ('uuid-a', 'uuid-b')), ('_X', ('uuid-b',))), (a, b)),
    ]


def test_dict_and_mappings_shapes_match_the_candidates_dicts():
    cands = _candidates()
    got = json.loads(wire.requests_json(cands, wire.MAPPINGS))
    assert got == [{'allocations': c.allocations, 'mappings': c.mappings} for c in cands]
    got = json.loads(wire.requests_json(cands, wire.DICT))
    assert got == [{'allocations': c.allocations} for c in cands]


def test_several_providers_of_the_unsuffixed_group():
    # parts in id order, the mapping's uuids in uuid order: they differ here
    a = loader.Provider(1, 'uuid-z', None, 1)
    b = loader.Provider(2, 'uuid-b', 1, 1)
    c = loader.Provider(3, 'uuid-c', 1, 1)
    cands = [candidate.Candidate(((a, (('DISK_GB', 10),)), (b, (('VCPU', 1), ('MEMORY_MB', 64)))),
                                 (('', ('uuid-b', 'uuid-z')),), (a, b)),
             # three: VCPU and memory from two NUMA nodes, disk from the compute
             candidate.Candidate(((a, (('DISK_GB', 10),)), (b, (('VCPU', 1),)),
                                  (c, (('MEMORY_MB', 64),))),
                                 (('', ('uuid-b', 'uuid-c', 'uuid-z')),), (a, b, c)),
             # a suffixed group of two providers is not the unsuffixed shape
             candidate.Candidate(((a, (('DISK_GB', 10),)), (b, (('VCPU', 1),))),
                                 (('_X', ('uuid-b', 'uuid-z')),), (a, b))]
    for shape in (wire.DICT, wire.MAPPINGS):
        got = json.loads(wire.requests_json(cands, shape))
        for found, cand in zip(got, cands):
            assert found['allocations'] == cand.allocations
            if shape == wire.MAPPINGS:
                assert found['mappings'] == cand.mappings
    got = wire.requests_json(cands[:1], wire.MAPPINGS)
    assert got.index(b'"uuid-z"') < got.index(b'"uuid-b"')            # allocations by id
    assert got.rindex(b'"uuid-b"') < got.rindex(b'"uuid-z"')          # mappings by uuid


def test_list_shape_before_1_12():
    got = json.loads(wire.requests_json(_candidates(), wire.LIST))
    assert got[1] == {'allocations': [
        {'resource_provider': {'uuid': 'uuid-a'}, 'resources': {'VCPU': 1, 'MEMORY_MB': 256}},
        {'resource_provider': {'uuid': 'uuid-b'}, 'resources': {'DISK_GB': 10}}]}


def test_no_candidates():
    for shape in (wire.LIST, wire.DICT, wire.MAPPINGS):
        assert json.loads(wire.requests_json([], shape)) == []


def _usable_size():
    """glibc's malloc_usable_size, or None where there is none (or objects are not its blocks)."""
    if os.environ.get('PYTHONMALLOC') or sys.flags.dev_mode:
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
        usable = libc.malloc_usable_size
    except (OSError, AttributeError):
        return None
    usable.restype = ctypes.c_size_t
    usable.argtypes = (ctypes.c_void_p,)
    return usable


def test_kept_encodings_own_only_their_bytes():
    # orjson writes into a buffer of at least 4 KiB and hands it out as is:
    # a memo of every provider's uuid in those cost a page per provider
    memo = wire._Memo()
    encoded = memo['f1a2b3c4-0000-4000-8000-000000000001']
    assert encoded == b'"f1a2b3c4-0000-4000-8000-000000000001"'
    assert wire.dumps({'VCPU': 1}) == b'{"VCPU":1}'
    usable = _usable_size()
    if usable is None:
        pytest.skip('no malloc_usable_size')
    # over 512 bytes: malloc's blocks, not pymalloc's (whose malloc_usable_size is undefined)
    big = orjson.dumps('x' * 1000)
    if usable(id(big)) < 2048:
        pytest.skip('this orjson gives exact-size bytes')
    copied = memo['x' * 1000]
    assert copied == big and usable(id(copied)) < 1100


def test_answer_json_is_the_two_lists_joined():
    cands = _candidates()
    summaries = [b'"uuid-a":{"resources":{}}', b'"uuid-b":{"resources":{}}']
    body = wire.answer_json(wire.request_pieces(cands, wire.MAPPINGS), summaries)
    assert json.loads(body) == {
        'allocation_requests': json.loads(wire.requests_json(cands, wire.MAPPINGS)),
        'provider_summaries': {'uuid-a': {'resources': {}}, 'uuid-b': {'resources': {}}}}
    assert wire.answer_json([], []) == b'{"allocation_requests":[],"provider_summaries":{}}'
    one = wire.answer_json(wire.request_pieces(cands[:1], wire.DICT), summaries[:1])
    assert json.loads(one)['provider_summaries'] == {'uuid-a': {'resources': {}}}


def test_consumed_candidates_leave_the_list_batch_by_batch(monkeypatch):
    cands = _candidates() * 3
    expected = wire.request_pieces(cands, wire.MAPPINGS)
    seen = []
    encode = wire._encode

    def spy(batch, shape, memos):
        seen.append(sum(c is None for c in work))    # batches already dropped
        return encode(batch, shape, memos)

    monkeypatch.setattr(wire, 'BATCH', 2)
    monkeypatch.setattr(wire, '_encode', spy)
    work = list(cands)
    assert wire.request_pieces(work, wire.MAPPINGS, consume=True) == expected
    assert work == [] and seen == [2, 4, 6]
    again = list(cands)
    assert wire.request_pieces(again, wire.MAPPINGS) == expected and again == cands


def test_a_granular_template_escapes_a_percent_sign():
    a = loader.Provider(1, 'uuid-%s-a', None, 1)
    b = loader.Provider(2, 'uuid-b', 1, 1)
    combo = granular.Combo(((0, a.inv), (1, b.inv)), ((a, (0,)), (b, (1,))), False,
                           (('_A%d', ('uuid-%s-a',)), ('_B', ('uuid-b',))), frozenset((a, b)))
    cand = candidate.Candidate(((a, (('VCPU', 1),)), (b, (('DISK_GB', 5),))),
                               combo.groups, combo.providers, combo=combo)
    for shape in (wire.DICT, wire.MAPPINGS):
        got = json.loads(wire.requests_json([cand], shape))
        assert got[0]['allocations'] == cand.allocations
        if shape == wire.MAPPINGS:
            assert got[0]['mappings'] == cand.mappings


@pytest.mark.parametrize('shape', [wire.LIST, wire.DICT, wire.MAPPINGS])
@pytest.mark.parametrize('size', [1, 7, 64, 4096])
def test_a_streamed_answer_is_the_whole_answer_in_bounded_chunks(monkeypatch, shape, size):
    monkeypatch.setattr(wire, 'BATCH', 2)      # several batches, an odd one last
    monkeypatch.setattr(wire, 'JOIN', 2)
    cands = _candidates() * 3 + _candidates()[:1]
    summaries = [b'"uuid-%d":{"resources":{}}' % i for i in range(5)]
    whole = wire.answer_json(wire.request_pieces(list(cands), shape), list(summaries))
    work = list(cands)
    chunks = list(wire.Streamed(work, shape, list(summaries)).chunks(size))
    assert b''.join(chunks) == whole
    assert all(len(c) == size for c in chunks[:-1]) and 0 < len(chunks[-1]) <= size
    assert work == []                       # the candidates were let go as encoded


def test_a_streamed_answer_without_candidates():
    body = wire.Streamed([], wire.MAPPINGS, [])
    assert list(body.chunks(64)) == [b'{"allocation_requests":[],"provider_summaries":{}}']


def test_a_streamed_answer_is_sent_once():
    body = wire.Streamed(_candidates(), wire.DICT, [])
    bytes(body)
    with pytest.raises(RuntimeError, match='sent once'):
        bytes(body)


def test_a_streamed_answer_encodes_as_the_server_asks(monkeypatch):
    """Each batch is encoded only when the chunks before it were taken."""
    monkeypatch.setattr(wire, 'BATCH', 1)
    cands = _candidates() * 4
    work = list(cands)
    chunks = wire.Streamed(work, wire.MAPPINGS, []).chunks(16)
    next(chunks)                            # the opening text alone
    next(chunks)                            # ... and the first candidate's
    assert work[-1] is cands[-1]            # not encoded yet
    assert work[0] is None                  # the first batch was
    list(chunks)
    assert work == []


@pytest.mark.parametrize('value', [
    '1b6f6c1e-8f0a-4b49-9a0f-3f1c1e2d4a5b', '', '_NUMA0', 'a"quote', 'back\\slash',
    'tab\there', 'nl\n', 'del\x7f', 'nul\x00', 'caf\u00e9', '\u2028', 'snow\u2603man',
    '%s%d', 42, None, ('a', 1)])
def test_text_writes_what_orjson_writes(value):
    # uuids and suffixes skip orjson; every other string is escaped as before
    assert wire.text(value) == orjson.dumps(value)
    assert type(wire.text(value)) is bytes


def test_uuids_encoded_in_one_call_are_what_orjson_makes_of_each():
    plain = ['u-1', 'u-2', 'ab' * 18]
    assert wire._texts(plain) == [orjson.dumps(v) for v in plain]
    # a comma inside a value cannot be split on: each value then on its own
    odd = ['u-1', 'a,b', 'q"x', 'back\\slash', 'ünï', 'c,d,e', 'tab\t', '']
    assert wire._texts(odd) == [orjson.dumps(v) for v in odd]


def test_an_answer_of_odd_uuids_is_byte_for_byte_the_dicts_json():
    res = (('VCPU', 1), ('MEMORY_MB', 256))
    ps = [loader.Provider(i, uuid, None, i) for i, uuid in
          enumerate(('u-a', 'x,y', 'q"', 'ünï', 'u-b'), 1)]
    cands = [candidate.Candidate(((p, res),), (('', (p.uuid,)),), (p,)) for p in ps]
    cands.append(candidate.Candidate(((ps[1], res), (ps[2], (('DISK_GB', 5),))),
                                     (('', (ps[1].uuid, ps[2].uuid)),), (ps[1], ps[2])))
    want = orjson.dumps([{'allocations': c.allocations, 'mappings': c.mappings}
                         for c in cands])
    assert wire.requests_json(cands, wire.MAPPINGS) == want
