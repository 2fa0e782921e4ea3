"""What keeps the candidate search's heap small: the anchor memo's admission, kept
encodings only on kept candidates, and the heap settling (common/heap)."""

import gc

from common import heap
from objects.candidates import anchor_memo, candidate, loader, wire


def test_anchor_memo_keeps_a_query_from_its_second_sighting():
    memo = anchor_memo.AnchorMemo(entries=2)
    assert memo.trees('a') is None            # first sighting: only remembered
    kept = memo.trees('a')
    assert kept == {} and memo.trees('a') is kept
    kept[1] = ('members', ('cand',))
    assert memo.trees('a')[1] == ('members', ('cand',))


def test_anchor_memo_holds_at_most_its_entries():
    memo = anchor_memo.AnchorMemo(entries=2)
    for key in 'abc':
        memo.trees(key)
        memo.trees(key)[0] = key
    assert memo.trees('c') == {0: 'c'} and memo.trees('b') == {0: 'b'}
    assert memo.trees('a') == {}               # evicted; seen before, so kept afresh


def test_anchor_memo_forgets_sightings_past_its_bound():
    memo = anchor_memo.AnchorMemo(seen=2)
    memo.trees('a')
    memo.trees('b')
    memo.trees('c')                            # clears the sightings first
    assert memo.trees('a') is None


def _cand(uuid):
    p = loader.Provider(1, uuid, None, 1)
    return candidate.Candidate(((p, (('VCPU', 1),)),), (('', (uuid,)),), (p,), False)


def test_encodings_are_kept_only_on_kept_candidates():
    once, kept = _cand('u1'), _cand('u2')
    kept.json = {}
    body = wire.requests_json([once, kept], wire.MAPPINGS)
    assert body == (b'[{"allocations":{"u1":{"resources":{"VCPU":1}}},"mappings":{"":["u1"]}},'
                    b'{"allocations":{"u2":{"resources":{"VCPU":1}}},"mappings":{"":["u2"]}}]')
    assert once.json is None
    assert kept.json == {wire.MAPPINGS: body[1 + len(body) // 2:-1]}
    assert wire.requests_json([kept], wire.MAPPINGS) == b'[%s]' % kept.json[wire.MAPPINGS]


def test_lone_fast_path_matches_the_general_encoding():
    cand = _cand('u1')
    fast = wire.requests_json([cand], wire.MAPPINGS)
    cand.groups = (('', ('u1',)), ('_X', ('u1',)))       # not the fast path's shape
    general = wire.requests_json([cand], wire.MAPPINGS)
    assert general.startswith(fast[:-3])                  # same allocations, more mappings
    assert wire.requests_json([cand], wire.DICT) == (
        b'[{"allocations":{"u1":{"resources":{"VCPU":1}}}}]')


def test_settle_freezes_what_is_alive():
    try:
        heap.settle()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert heap.fix_mmap_threshold() in (True, False)     # glibc or not: never raises


class _Libc:
    def __init__(self, result=1):
        self.calls, self.result = [], result

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return self.result


def test_malloc_arenas_capped_unless_the_environment_says_otherwise():
    libc = _Libc()
    assert heap.cap_malloc_arenas(environ={}, libc=libc) is True
    assert libc.calls == [(-8, heap.ARENA_MAX)]            # M_ARENA_MAX
    libc = _Libc()
    assert heap.cap_malloc_arenas(environ={'MALLOC_ARENA_MAX': '8'}, libc=libc) is False
    assert libc.calls == []
    assert heap.cap_malloc_arenas(environ={}, libc=_Libc(result=0)) is False
    assert heap.cap_malloc_arenas(environ={}, libc=object()) is False   # no mallopt


def test_collection_paused_inside_and_restored_after_the_last_pause():
    assert gc.isenabled()
    with heap.collection_paused():
        assert not gc.isenabled()
        with heap.collection_paused():           # another thread's answer, say
            assert not gc.isenabled()
        assert not gc.isenabled()                # one pause still open
    assert gc.isenabled()


def test_collection_restored_when_the_answer_fails():
    try:
        with heap.collection_paused():
            raise ValueError('boom')
    except ValueError:
        pass
    assert gc.isenabled()


def test_collection_left_off_when_it_was_off_before():
    gc.disable()
    try:
        with heap.collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_long_overlapping_pauses_still_collect_the_young(monkeypatch):
    collected = []
    monkeypatch.setattr(heap, 'PAUSE_COLLECT_AFTER', -1.0)
    monkeypatch.setattr(heap.gc, 'collect', collected.append)
    with heap.collection_paused():
        with heap.collection_paused():
            pass
        assert collected == [1]                 # the inner one ended while the outer runs
    assert collected == [1]                     # the last one re-enables instead
    assert gc.isenabled()


def test_only_unlimited_answers_pause_the_collector(monkeypatch):
    from api.placement.handlers import allocation_candidate as handler
    from objects.candidates import finder

    monkeypatch.setattr(handler, '_build', lambda req, request, options, token: gc.isenabled())
    assert handler._answer(None, None, finder.Options(limit=None)) is False
    assert handler._answer(None, None, finder.Options(limit=5, randomize=True)) is False
    assert handler._answer(None, None, finder.Options(limit=5)) is True
    assert gc.isenabled()
