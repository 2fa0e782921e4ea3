"""Partitions on several namespaced hosts: every case recovers by itself and loses nothing.

One cluster (API and three conductors each in a network namespace of its own;
PostgreSQL, RabbitMQ and etcd on their own bridge addresses) under the chaos
suite's load; the cases run one after another (tests/partitions/scenario.py):
a conductor cut from etcd (the others take over; it rejoins and serves again),
a conductor cut from RabbitMQ, a conductor cut from the database, the API cut
from RabbitMQ, and a conductor added on a new host while another drains.  The
table is printed; long or repeated runs: ``bench/partitions.py``.
"""

import os
import random
import shutil
import tempfile

from tests.chaos import deployment
from tests.partitions import conftest, scenario

pytestmark = conftest.MARKS


def test_partitions_heal_by_themselves_and_lose_nothing(partition_hosts):
    seed = int(os.environ.get('BERTH_CHAOS_SEED') or random.SystemRandom().randrange(10**6))
    workdir = tempfile.mkdtemp(prefix='berth-partitions-')
    result = scenario.run(workdir, seed)
    scenario.print_table(result)
    rows = {row['case']: row for row in result['rows']}
    if result['violations'] or any(row['failures'] for row in rows.values()):
        deployment.print_log_tails(workdir)    # CI keeps only what is printed
    assert sorted(set(result['violations'])) == [], (seed, workdir, result['violations'][:10])
    assert all(not row['failures'] for row in rows.values()), (workdir, rows)
    assert all(row['violations'] == 0 for row in rows.values()), rows
    drain = rows['add c3, drain c1']
    # a drained conductor finishes what it has: nothing in flight is lost
    assert drain['no_answer'] == 0, drain
    shutil.rmtree(workdir, ignore_errors=True)
