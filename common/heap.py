"""The process's garbage collector, set for a server holding a large long-lived heap.

A berth API process keeps every provider in memory (the candidate index,
objects/candidates/index.py) next to the import-time heap of its libraries:
hundreds of thousands of GC-tracked objects at N=1,000 providers, millions
at N=100,000.  CPython's full (generation-2) collection walks all of them
each time the objects promoted since the last one reach a quarter of that
heap, and a candidate search's answer (thousands of short-lived objects,
alive for the whole request) is promoted as it is built.  Measured with
bench/candidates_tail.py at N=1,000, distinct no-limit queries: one full
collection every ~12 requests, 100-400 ms each, which was the whole p95.

* :func:`settle` collects once and moves every object alive into the
  permanent generation (``gc.freeze``), which later collections skip: call
  it when a large long-lived structure has just been built (after start-up,
  after the provider index's first load).  Frozen objects are still freed
  by reference counting; only cyclic garbage frozen with them would stay,
  so settle collects first.  It also fixes glibc's mmap threshold (see
  :func:`fix_mmap_threshold`).
"""

import contextlib
import ctypes
import ctypes.util
import gc
import os
import threading
import time

_LOCK = threading.Lock()
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
ARENA_MAX = 1
MMAP_THRESHOLD = 256 * 1024
_fixed: list[bool] = []
# longest the collector stays off while pauses overlap before a young collection
PAUSE_COLLECT_AFTER = 5.0
_pause = {'count': 0, 'enable': False, 'since': 0.0}
# tracked objects made (net) during a pause above which its end freezes them
FREEZE_AFTER = 100000


def fix_mmap_threshold():
    """Serve allocations of 256 KiB and more from mmap, returned to the OS when freed.

    glibc raises its mmap threshold each time such a block is freed (up to
    32 MiB), so after the first few large answers (hundreds of kB to MBs of
    JSON) they come from the threads' heaps, which keep the freed memory:
    at N=10,000 that held ~65 MB of RSS after 40 requests
    (bench/candidates_tail.py).  A fixed threshold keeps RSS at what is
    alive.  No-op where glibc's mallopt is missing.  True when set.
    """
    if _fixed:
        return _fixed[0]
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
        done = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):
        done = False
    _fixed.append(done)
    return done


def cap_malloc_arenas(environ=None, libc=None):
    """At most ARENA_MAX glibc malloc arenas for this process's threads.

    Each thread allocating under contention gets an arena of its own (up to
    8 per CPU), and an arena keeps what was freed in it: the API server's
    request threads each built some large answers, and their arenas held
    them.  Measured at 100,000 computes (bench/region.py's topology, berth
    serve), three distinct no-limit answers (240,000 candidates) in a row
    left RSS at 1.09, 1.58 and 2.06 GB with the default arenas, 0.62, 0.64
    and 0.65 GB with two.  Two still kept ~580 MB after the other query
    shapes (bench/region.py, 100,000 computes: 1,132 MB after every shape,
    HWM 1,803 MB); one (the main arena, shared) 678 MB, HWM 1,295 MB, for
    the same CPU per request: Python's threads allocate under the GIL, so
    they rarely contend for it.  Call before the
    server's threads start; ``MALLOC_ARENA_MAX`` in the environment, when
    set, is glibc's own setting and wins.  No-op where glibc's mallopt is
    missing.  True when set.
    """
    if 'MALLOC_ARENA_MAX' in (os.environ if environ is None else environ):
        return False
    try:
        libc = libc or ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
        return bool(libc.mallopt(_M_ARENA_MAX, ARENA_MAX))
    except (OSError, AttributeError):
        return False


def settle(collect: bool = True) -> None:
    """Collect, then freeze everything alive out of later collections' way.

    ``collect=False`` freezes without the collection: it walks every object
    alive, holding the GIL all along (349 ms at 100,000 computes once the
    index is loaded, seconds at 1,000,000: no other thread, not even the
    one honouring SIGTERM, runs meanwhile), for the few hundred cyclic
    objects it finds then.
    """
    with _LOCK:
        fix_mmap_threshold()
        if collect:
            gc.collect()
        gc.freeze()


def freeze() -> None:
    """Freeze everything alive now, without a collection first (constant time).

    For after a rebuild of a long-lived structure (the provider index after
    writes, objects/candidates/index.py): its new objects would otherwise
    be walked by every later collection of the generation they reach, each
    walk a pause of whatever request triggered it.  What is garbage already
    is freed as ever by reference counting; only cycles that are garbage
    now would stay.
    """
    with _LOCK:
        gc.freeze()


@contextlib.contextmanager
def collection_paused():
    """No automatic cyclic collection while a large answer is built (and encoded).

    An unlimited candidate answer allocates millions of container objects
    (candidates and their tuples) that all stay alive until it is written;
    every young collection walks the ones made since the last, and each
    promotion towards the oldest generation triggers full collections of all
    the answer made so far, each touching the providers it refers to (the
    frozen index, hundreds of MB at 100,000 computes, mostly out of the CPU
    cache).  Measured in-process at 100,000 computes (bench.region's
    topology, distinct no-limit queries, 240,000 candidates): 4.1 s CPU per
    answer with the collector on, 1.8 s with it off; 17 vs 7.4 µs per
    candidate (8 µs at 10,000 computes).

    Reference counting still frees everything acyclic at once; cyclic
    garbage made meanwhile waits for the next collection after the last
    overlapping pause ends.  While pauses overlap for longer than
    PAUSE_COLLECT_AFTER seconds, each pause that ends runs a young collection
    (generations 0 and 1), so a busy server never goes without one for long.
    Pauses nest across threads; a collector that was already disabled stays so.
    """
    with _LOCK:
        if _pause['count'] == 0:
            _pause['enable'] = gc.isenabled()
            _pause['since'] = time.monotonic()
            gc.disable()
        _pause['count'] += 1
    try:
        yield
    finally:
        collect_young = False
        with _LOCK:
            _pause['count'] -= 1
            if _pause['count'] == 0:
                if gc.get_count()[0] > FREEZE_AFTER:
                    # what the pause made and kept (an index load or refresh,
                    # the memos an unlimited answer fills): frozen, not walked
                    # by the young collection the next allocation starts, in
                    # whatever request that is (see freeze())
                    gc.freeze()
                if _pause['enable']:
                    gc.enable()
            elif time.monotonic() - _pause['since'] > PAUSE_COLLECT_AFTER:
                _pause['since'] = time.monotonic()
                collect_young = True
        if collect_young:
            gc.collect(1)
