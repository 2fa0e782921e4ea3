"""Long chaos runs: a real deployment under load with faults on a seeded schedule.

    .venv/bin/python bench/chaos.py --minutes 30 --seed 42 [--tooz redis]

Starts PostgreSQL, RabbitMQ, etcd (or Redis), both APIs under gunicorn and
three conductors on loopback (tests/chaos/deployment.py), drives claims,
schedule-and-claims and node allocations, injects faults (tests/chaos/faults.py)
and checks the invariants from the database (tests/chaos/invariants.py).
Prints a table per fault kind and a final JSON line; exits 1 on any
invariant violation.  Logs stay in the printed work directory.
"""

import argparse
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.chaos import (
    deployment,  # noqa: E402
    faults,  # noqa: E402
)
from tests.chaos import run as chaos_run  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--minutes', type=float, default=30)
    parser.add_argument('--seed', type=int, default=None)
    parser.add_argument('--tooz', choices=('etcd', 'redis'), default='etcd')
    parser.add_argument('--kinds', default=','.join(faults.KINDS),
                        help='comma-separated fault kinds (default: all)')
    parser.add_argument('--each-once', action='store_true',
                        help='every kind once (shuffled) instead of a random draw')
    parser.add_argument('--workdir', default=None)
    args = parser.parse_args(argv)
    missing = deployment.missing_binaries(args.tooz)
    if missing:
        print('missing servers: %s' % missing, file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    workdir = args.workdir or tempfile.mkdtemp(prefix='berth-chaos-')
    print('load average: %s' % open('/proc/loadavg').read().strip(), flush=True)
    result = chaos_run.run(workdir, seed, minutes=None if args.each_once else args.minutes,
                           each_once=args.each_once, kinds=args.kinds.split(','),
                           tooz=args.tooz, out=lambda s: print(s, flush=True))
    print('load average: %s' % open('/proc/loadavg').read().strip(), flush=True)
    return 1 if result['violations'] else 0


if __name__ == '__main__':
    sys.exit(main())
