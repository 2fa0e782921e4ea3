"""A short chaos run: every fault kind once under load, each recovered, nothing lost.

The schedule is fixed: every kind of tests/chaos/faults.KINDS once, in the
order and with the gaps and hold times that ``SEED`` draws (printed; set
``BERTH_CHAOS_SEED`` to replay another order).  The faults must all be
injected and recovered within ``FAULT_BUDGET`` seconds counted from the start
of the load, the deployment's start-up excluded: a run too slow to reach the
last kind fails instead of passing with fewer.  The whole test stays under
8 minutes on a 2-core machine.  Long runs: ``bench/chaos.py``.  The logs of
every process are kept (and named) when the test fails, and their ends printed.
"""

import os
import shutil
import tempfile

from tests.chaos import conftest, deployment, faults
from tests.chaos import run as chaos_run

pytestmark = conftest.MARKS

SEED = 20261122
FAULT_BUDGET = 5 * 60     # seconds from the start of the load to the last fault's start
GAP = (3, 8)              # seconds between a recovery and the next fault


def plan(seed):
    """Every fault kind once, in the seeded order: ``[(gap, kind, hold)]``."""
    return faults.schedule(seed, faults.KINDS, each_once=True, gap=GAP)


def missing_kinds(result, kinds=faults.KINDS):
    """What the run failed to prove: kinds not injected once, or not recovered."""
    problems = []
    for kind in kinds:
        row = result['rows'].get(kind, {})
        if result['injected'].count(kind) != 1 or row.get('faults') != 1:
            problems.append('%s injected %d times' % (kind, result['injected'].count(kind)))
        elif kind not in result['recovered'] or row.get('unrecovered'):
            problems.append('%s did not recover' % kind)
    return problems


def test_every_fault_kind_loses_nothing(chaos_servers):
    seed = int(os.environ.get('BERTH_CHAOS_SEED') or SEED)
    schedule = plan(seed)
    assert sorted(kind for _, kind, _ in schedule) == sorted(faults.KINDS)
    workdir = tempfile.mkdtemp(prefix='berth-chaos-')
    result = chaos_run.run(workdir, seed, each_once=True, plan=schedule,
                           budget=FAULT_BUDGET)
    distinct = sorted(set(result['violations']))
    problems = missing_kinds(result)
    if distinct or problems or result['stopped']:
        deployment.print_log_tails(workdir)    # CI keeps only what is printed
    assert distinct == [], 'seed %d, logs in %s: %s' % (seed, workdir, distinct[:10])
    assert problems == [], 'seed %d (%s), logs in %s' % (seed, result['stopped'], workdir)
    assert result['injected'] == [kind for _, kind, _ in schedule]
    assert result['stopped'] is None
    shutil.rmtree(workdir, ignore_errors=True)
