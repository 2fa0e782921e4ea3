"""A short chaos run: every fault kind once under load, zero invariant violations.

Bounded: each fault kind is injected once (seeded order and timings; the
seed is printed, set ``BERTH_CHAOS_SEED`` to replay), and the fault loop
stops injecting at a wall-clock budget, so the whole test stays under
8 minutes on a 2-core machine.  Long runs: ``bench/chaos.py``.  The logs of
every process are kept (and named) when the test fails, and their ends printed.
"""

import os
import random
import shutil
import tempfile
import time

from tests.chaos import conftest, deployment, faults
from tests.chaos import run as chaos_run

pytestmark = conftest.MARKS

BUDGET = 5 * 60           # seconds of deployment + faults before the final checks


def test_every_fault_kind_loses_nothing(chaos_servers):
    seed = int(os.environ.get('BERTH_CHAOS_SEED') or random.SystemRandom().randrange(10**6))
    workdir = tempfile.mkdtemp(prefix='berth-chaos-')
    result = chaos_run.run(workdir, seed, each_once=True, deadline=time.monotonic() + BUDGET)
    distinct = sorted(set(result['violations']))
    rows = result['rows']
    if distinct or any(r['unrecovered'] for r in rows.values()):
        deployment.print_log_tails(workdir)    # CI keeps only what is printed
    assert distinct == [], 'seed %d, logs in %s: %s' % (seed, workdir, distinct[:10])
    assert all(r['unrecovered'] == 0 for r in rows.values()), (workdir, rows)
    assert sum(r['faults'] for r in rows.values()) >= 1, rows
    assert {k for k, r in rows.items() if r['faults']} <= set(faults.KINDS)
    shutil.rmtree(workdir, ignore_errors=True)
