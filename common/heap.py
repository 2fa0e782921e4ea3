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

import ctypes
import ctypes.util
import gc
import os
import threading

_LOCK = threading.Lock()
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
ARENA_MAX = 1
MMAP_THRESHOLD = 256 * 1024
_fixed = []


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


def settle():
    """Collect, then freeze everything alive out of later collections' way."""
    with _LOCK:
        fix_mmap_threshold()
        gc.collect()
        gc.freeze()
