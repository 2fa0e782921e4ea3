"""Partition runs on namespaced hosts: each case's requests, 5xx, recovery and violations.

    .venv/bin/python bench/partitions.py [--rounds 3] [--seed 42]

Builds the cluster of tests/partitions/scenario.py (API and conductors in
network namespaces of their own, PostgreSQL, RabbitMQ and etcd on bridge
addresses; needs root), runs every partition case ``--rounds`` times under
the chaos suite's load, prints a table per round and a final JSON line, and
exits 1 on any invariant violation or case that did not recover.
"""

import argparse
import json
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests import netns  # noqa: E402
from tests.partitions import scenario  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=1)
    parser.add_argument('--seed', type=int, default=None)
    args = parser.parse_args(argv)
    reason = netns.unavailable_reason()
    if reason:
        print('cannot run: %s' % reason, file=sys.stderr)
        return 2
    netns.remove_stale()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    loads = [open('/proc/loadavg').read().split()[0]]
    results = []
    for index in range(args.rounds):
        workdir = tempfile.mkdtemp(prefix='berth-partitions-')
        result = scenario.run(workdir, seed + index, out=lambda s: print(s, flush=True))
        scenario.print_table(result)
        results.append(result)
        loads.append(open('/proc/loadavg').read().split()[0])
    bad = any(r['violations'] or any(row['failures'] for row in r['rows']) for r in results)
    print(json.dumps({'benchmark': 'partitions', 'seed': seed, 'load_avg_1m': loads,
                      'rounds': [{'rows': r['rows'], 'violations': len(r['violations']),
                                  'requests': r['requests'], 'wall_s': r['wall_s']}
                                 for r in results]}, sort_keys=True))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
