"""Memory under allocation requests with random trait counts, on an embedded berth.

An embedded berth (SQLite, in-process transport, one conductor) with a few
available nodes; ``--clients`` threads POST ``/v1/allocations`` with a
random number of traits (0 to ``--max-traits``; above 50 the API refuses
with 400) until ``--requests`` are sent.  Every accepted allocation runs
the conductor's candidate query for its trait count; before the bounds of
issue 17 each distinct count built and kept a compiled query forever.

Prints the process RSS (this process serves the API and the conductor)
after a warm-up and after the burst, the answers by status, the number of
cached candidate queries, and a final JSON line.

    .venv/bin/python -m bench.trait_memory [--requests 10000] [--clients 4]

Recorded 2026-11-24 ~08:00-08:14 UTC on the shared 2-CPU machine (SQLite,
4 nodes, 4 clients; RSS of the serving process after a 200-request warm-up
and after the burst, every allocation finished):

    code            requests  traits  answers            RSS MB before -> after  cached
    this branch     10,000    0-60    8,332 201, 1,668 400  127.2 -> 131.9 (+4.7)  8
    this branch      2,000    0-300     343 201, 1,657 400  126.8 -> 130.1 (+3.4)  8
    this branch      2,000    0-50    2,000 201             127.2 -> 130.3 (+3.1)  8
    main (688a906)   2,000    0-300   2,000 201             306.9 -> 496.6 (+190)  301
    main (688a906)   2,000    0-50    2,000 201             136.9 -> 140.5 (+3.6)  51

On main the warm-up alone (200 requests up to 300 traits) took RSS from
~127 to 307 MB: one compiled query kept per distinct trait count.  The
remaining few MB are the SQLite page cache and the allocation rows.
"""

import argparse
import collections
import concurrent.futures
import gc
import json
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from objects.baremetal import node_choice  # noqa: E402
from tests import fixtures  # noqa: E402
from tests.functional import baremetal_helpers  # noqa: E402


def rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
    return None


def _send(bm, rng, max_traits):
    count = rng.randint(0, max_traits)
    traits = ['CUSTOM_BENCH_%d' % i for i in range(count)]
    return bm.post('/v1/allocations', json={'resource_class': 'gold',
                                            'traits': traits}).status_code


def _settle(url, deadline=600.0):
    """Wait until the conductor has finished every allocation (True) or not."""
    bm = fixtures.BaremetalClient(url, version='latest')
    end = time.monotonic() + deadline
    try:
        while time.monotonic() < end:
            if not bm.get('/v1/allocations?state=allocating&limit=1').json()[
                    'allocations']:
                return True
            time.sleep(0.5)
        return False
    finally:
        bm.close()


def burst(url, requests_count, clients, max_traits, seed):
    statuses: collections.Counter[int | str] = collections.Counter()

    def worker(n):
        bm = fixtures.BaremetalClient(url, version='1.60')
        rng = random.Random(seed + n)
        try:
            for _ in range(n, requests_count, clients):
                statuses[_send(bm, rng, max_traits)] += 1
        finally:
            bm.close()

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    return statuses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=10000)
    parser.add_argument('--warmup', type=int, default=200)
    parser.add_argument('--clients', type=int, default=4)
    parser.add_argument('--max-traits', type=int, default=60)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        conf = fixtures.make_conf(os.path.join(tmp, 'state'))
        conf.set_override('embedded_conductors', 1, group='conductor')
        stack = fixtures.start_embedded(conf)
        try:
            bm = fixtures.BaremetalClient(stack.baremetal_url, version='latest')
            for i in range(4):
                baremetal_helpers.make_node(bm, 'bench-%d' % i,
                                            traits=['CUSTOM_BENCH_0'])
            bm.close()
            burst(stack.baremetal_url, args.warmup, args.clients, args.max_traits,
                  args.seed + 1000)
            gc.collect()
            before = rss_mb()
            start = time.monotonic()
            statuses = burst(stack.baremetal_url, args.requests, args.clients,
                             args.max_traits, args.seed)
            wall = time.monotonic() - start
            settled = _settle(stack.baremetal_url)
            gc.collect()
            after = rss_mb()
            cached = len(node_choice.LIMITED)
        finally:
            stack.stop()
    result = {'requests': args.requests, 'clients': args.clients,
              'max_traits': args.max_traits,
              'statuses': {str(k): v for k, v in sorted(statuses.items())},
              'rss_before_mb': round(before, 1), 'rss_after_mb': round(after, 1),
              'rss_growth_mb': round(after - before, 1),
              'cached_candidate_queries': cached, 'wall_s': round(wall, 1),
              'settled': settled}
    print('requests %(requests)d, answers %(statuses)s, RSS %(rss_before_mb)s -> '
          '%(rss_after_mb)s MB (%(rss_growth_mb)+.1f), cached queries '
          '%(cached_candidate_queries)d, %(wall_s)s s' % result)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
