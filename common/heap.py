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
  so settle collects first.
"""

import gc
import threading

_LOCK = threading.Lock()


def settle():
    """Collect, then freeze everything alive out of later collections' way."""
    with _LOCK:
        gc.collect()
        gc.freeze()
