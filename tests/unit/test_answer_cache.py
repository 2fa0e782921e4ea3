"""objects.candidates.answer_cache: when an answer is kept, served and dropped."""

import threading
import time

from objects.candidates import answer_cache


class FakeDb:
    """Change tokens from a script: each change_token() call takes the next one."""

    replica_engine = None

    def __init__(self, *tokens, replica=False):
        self.tokens = list(tokens)
        if replica:
            self.replica_engine = object()

    def change_token(self):
        return self.tokens.pop(0) if len(self.tokens) > 1 else self.tokens[0]


# generous: these waits only bound a hang (a lost wake-up), they time nothing
WAIT = 60


def _finished(threads):
    """Join ``threads`` (WAIT s for them all); the names of those still blocked."""
    end = time.monotonic() + WAIT
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    return [t.name for t in threads if t.is_alive()]


def _compute(answer, calls):
    def compute():
        calls.append(answer)
        return answer
    return compute


def test_hit_while_the_token_stays():
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb((1, 1))
    assert cache.get(db, 'q', _compute(b'a', calls)) == b'a'
    assert cache.get(db, 'q', _compute(b'b', calls)) == b'a'
    assert calls == [b'a'] and (cache.hits, cache.misses) == (1, 1)


def test_a_commit_during_the_computation_keeps_nothing():
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb((1, 1), (1, 2), (1, 2))        # before, after (moved), next request
    cache.get(db, 'q', _compute(b'a', calls))
    assert cache.get(db, 'q', _compute(b'b', calls)) == b'b'
    assert calls == [b'a', b'b']


def test_a_new_token_drops_older_answers():
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb((1, 1), (1, 1), (1, 2))
    cache.get(db, 'q', _compute(b'a', calls))
    assert cache.get(db, 'q', _compute(b'b', calls)) == b'b'
    assert cache.get(db, 'q', _compute(b'c', calls)) == b'b'


def test_an_older_token_never_replaces_newer_answers():
    cache, calls = answer_cache.AnswerCache(4), []
    cache.get(FakeDb((1, 5)), 'q', _compute(b'new', calls))
    cache.get(FakeDb((1, 4)), 'q', _compute(b'old', calls))      # a slow, earlier request
    assert cache.get(FakeDb((1, 5)), 'q', _compute(b'x', calls)) == b'new'


def test_a_forked_process_starts_afresh():
    cache, calls = answer_cache.AnswerCache(4), []
    cache.get(FakeDb((100, 5)), 'q', _compute(b'parent', calls))
    # the child's own watcher counts from 1 again: never the parent's answers
    assert cache.get(FakeDb((7, 5)), 'q', _compute(b'child', calls)) == b'child'
    assert cache.get(FakeDb((7, 5)), 'q', _compute(b'x', calls)) == b'child'


def test_no_detector_means_no_cache():
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb(None)
    cache.get(db, 'q', _compute(b'a', calls))
    cache.get(db, 'q', _compute(b'b', calls))
    assert calls == [b'a', b'b']


def test_bounded_by_entries_and_bytes():
    cache, calls = answer_cache.AnswerCache(2, max_bytes=10), []
    db = FakeDb((1, 1))
    for key in 'abc':
        cache.get(db, key, _compute(key.encode() * 3, calls))
    cache.get(db, 'a', _compute(b'A', calls))              # 'a' was evicted (LRU)
    assert calls[-1] == b'A'
    cache.get(db, 'big', _compute(b'x' * 11, calls))       # larger than max_bytes
    cache.get(db, 'big', _compute(b'y' * 11, calls))
    assert calls[-1] == b'y' * 11


def test_one_cache_per_database():
    db = FakeDb((1, 1))
    assert answer_cache.for_database(db, 3) is answer_cache.for_database(db, 3)


def test_concurrent_misses_compute_once():
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb((1, 1))
    entered, release = threading.Event(), threading.Event()

    def slow():
        calls.append('leader')
        entered.set()
        release.wait()
        return b'answer'

    got = []
    leader = threading.Thread(target=lambda: got.append(cache.get(db, 'q', slow)),
                              name='leader', daemon=True)
    leader.start()
    assert entered.wait(WAIT)
    followers = [threading.Thread(
        target=lambda: got.append(cache.get(db, 'q', _compute(b'other', calls))),
        name='follower-%d' % i, daemon=True) for i in range(3)]
    for t in followers:
        t.start()
    release.set()
    assert _finished([leader] + followers) == []      # nobody left waiting on the flight
    assert calls == ['leader'] and got == [b'answer'] * 4


def test_a_failed_computation_releases_the_waiters():
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb((1, 1))

    def broken():
        raise RuntimeError('boom')

    try:
        cache.get(db, 'q', broken)
    except RuntimeError:
        pass
    got = []
    # in a thread: a flight left behind by the failure would block it for good
    after = threading.Thread(target=lambda: got.append(cache.get(db, 'q', _compute(b'a', calls))),
                             name='after-failure', daemon=True)
    after.start()
    assert _finished([after]) == []
    assert got == [b'a']


def _seen(answer, token, calls):
    def compute():
        calls.append(answer)
        return answer, token
    return compute


def test_an_answer_naming_its_own_snapshot_is_kept_under_that_token_only():
    # the read's own snapshot token decides, not the watcher's before/after
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb(('pg', 5, 5, ()))
    assert cache.get(db, 'q', _seen(b'a', ('pg', 5, 5, ()), calls)) == b'a'
    assert cache.get(db, 'q', _seen(b'b', ('pg', 5, 5, ()), calls)) == b'a'
    assert calls == [b'a']


def test_a_lagging_read_is_never_kept_under_a_newer_token():
    # the watcher says state 9, the read ran on a server still at state 5
    # (a replica behind the watcher's server): filing it under 9 would serve
    # the old state as current until the next commit
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb(('pg', 9, 9, ()), replica=True)
    assert cache.get(db, 'q', _seen(b'old', ('pg', 5, 5, ()), calls)) == b'old'
    assert cache.get(db, 'q', _seen(b'new', ('pg', 9, 9, ()), calls)) == b'new'
    assert cache.get(db, 'q', _seen(b'x', ('pg', 9, 9, ()), calls)) == b'new'
    assert calls == [b'old', b'new']


def test_with_a_replica_an_answer_of_unknown_snapshot_is_not_kept():
    # equal watcher tokens before and after prove nothing about the server
    # the read used when that may be another one
    cache, calls = answer_cache.AnswerCache(4), []
    db = FakeDb(('pg', 9, 9, ()), replica=True)
    assert cache.get(db, 'q', _compute(b'a', calls)) == b'a'
    assert cache.get(db, 'q', _compute(b'b', calls)) == b'b'
    assert cache.get(db, 'q', _seen(b'c', None, calls)) == b'c'
    assert calls == [b'a', b'b', b'c']
