"""Provider benchmark: load N providers over HTTP, then time filtered provider lists.

Each provider is written with four requests (POST /resource_providers, PUT
inventories VCPU/MEMORY_MB/DISK_GB, PUT aggregates, PUT traits) from a few
concurrent threads; aggregates cycle [A], [A,B], [A,B,C] and traits cycle
[AVX2], [AVX2,SSE2], [AVX2,SSE2,SSD].  Then ``GET /resource_providers`` is
timed with ``resources=``, ``required=``, ``member_of=`` and all three at
once.  The sizes are loaded cumulatively into one deployment (``--sizes
1000,10000`` loads 1000, measures, loads 9000 more, measures).

Prints a table and a final JSON line.

    .venv/bin/python -m bench.providers                       # embedded, 1000,10000
    .venv/bin/python -m bench.providers --sizes 1000 --url http://127.0.0.1:8778
    .venv/bin/python -m bench.providers --budget 600   # cap each load at 10 minutes

Recorded 2026-11-22, embedded berth (SQLite file, synchronous=FULL, 8 API
threads), 4 writer threads, 20 timed GETs per query, on a 2-CPU machine
shared with other test runs (load average 20-85, so read these as lower
bounds, not as berth's capacity):

    run 1 (--budget 600)      N=1000: 14.1 writes/s   N=10000: 70.4 writes/s
      p50/p95 ms  resources   94/880        3841/6445   (all 10000 match)
                  required    27/248         825/1908   (3333 match)
                  member_of   28/602        2578/3724   (6666 match)
                  all three   25/61          895/1635   (3333 match)
    run 2 (after caching microversion parsing; heavier load; the 10 minute
          budget stopped the load at 6368 providers)
                              N=1000: 27.8 writes/s   N=6368: 35.7 writes/s
      p50/p95 ms  resources   182/1369      2376/3551
                  required    97/303         789/1436
                  member_of   135/773       1313/2347
                  all three   29/337         395/2366

At 10000 providers a list returning every provider is ~7.8 MB of JSON;
a profile shows the time split between building the representations
(links per provider), fetching rows and serialising, not the filter SQL.
"""

import argparse
import concurrent.futures
import json
import sys
import tempfile
import threading
import time
import uuid as uuidlib

import requests

VERSION = '1.39'
AGGS = {name: str(uuidlib.uuid4()) for name in 'ABC'}
AGG_CYCLE = ['A', 'AB', 'ABC']
TRAIT_CYCLE = [['HW_CPU_X86_AVX2'], ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2'],
               ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD']]
INVENTORY = {'VCPU': {'total': 32, 'allocation_ratio': 4.0, 'max_unit': 32},
             'MEMORY_MB': {'total': 131072, 'min_unit': 128, 'step_size': 128},
             'DISK_GB': {'total': 2000}}
QUERIES = [
    ('resources', 'resources=VCPU:8,MEMORY_MB:4096,DISK_GB:100'),
    ('required', 'required=HW_CPU_X86_SSE2,!STORAGE_DISK_SSD'),
    ('member_of', 'member_of=in:%s,%s' % (AGGS['B'], AGGS['C'])),
    ('all three', 'resources=VCPU:8,MEMORY_MB:4096&required=HW_CPU_X86_SSE2'
                  '&member_of=%s' % AGGS['C']),
]


class Client:
    """One requests session per thread; admin noauth2 token."""

    def __init__(self, url, token):
        self.url = url.rstrip('/')
        self.headers = {'X-Auth-Token': token,
                        'OpenStack-API-Version': 'placement %s' % VERSION}
        self.local = threading.local()

    def call(self, method, path, body=None):
        session = getattr(self.local, 'session', None)
        if session is None:
            session = self.local.session = requests.Session()
        resp = session.request(method, self.url + path, json=body, headers=self.headers)
        if resp.status_code >= 300:
            raise RuntimeError('%s %s -> %d %s' % (method, path, resp.status_code,
                                                   resp.text))
        return resp


def write_provider(client, i):
    """Create provider ``i`` with inventory, aggregates and traits (4 writes)."""
    rp = str(uuidlib.uuid4())
    base = '/resource_providers/%s' % rp
    client.call('POST', '/resource_providers',
                {'name': 'bench-rp-%d-%s' % (i, rp[:8]), 'uuid': rp})
    gen = client.call('PUT', base + '/inventories', {
        'resource_provider_generation': 0,
        'inventories': INVENTORY}).json()['resource_provider_generation']
    gen = client.call('PUT', base + '/aggregates', {
        'resource_provider_generation': gen,
        'aggregates': [AGGS[a] for a in AGG_CYCLE[i % 3]]}
    ).json()['resource_provider_generation']
    client.call('PUT', base + '/traits', {'resource_provider_generation': gen,
                                          'traits': TRAIT_CYCLE[i % 3]})
    return 4


def load(client, first, count, threads, budget=None):
    """Write providers first..first+count-1, stopping after ``budget`` seconds.

    Returns (providers written, writes, seconds).
    """
    t0 = time.perf_counter()

    def one(i):
        if budget is not None and time.perf_counter() - t0 > budget:
            return 0
        return write_provider(client, i)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        writes = sum(pool.map(one, range(first, first + count)))
    return writes // 4, writes, time.perf_counter() - t0


def _percentile(values, pct):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


def time_queries(client, repeat):
    """{label: (matches, p50 ms, p95 ms)} for each filtered list."""
    out = {}
    for label, query in QUERIES:
        path = '/resource_providers?' + query
        matches = len(client.call('GET', path).json()['resource_providers'])  # warm
        samples = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            client.call('GET', path).json()
            samples.append(time.perf_counter() - t0)
        out[label] = (matches, round(_percentile(samples, 50) * 1000, 1),
                      round(_percentile(samples, 95) * 1000, 1))
    return out


def _embedded(data_dir):

    from cli import deployment
    from common.conf import builder
    conf = builder.build(config_files=[], overrides={
        'state_path': data_dir, 'api.auth_strategy': 'noauth2',
        'api.placement_port': 0, 'api.baremetal_port': 0})
    stack = deployment.Embedded(conf)
    stack.start()
    return stack


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', help='Placement API of a running berth '
                                      '(default: start an embedded one in a temp dir)')
    parser.add_argument('--token', default='admin')
    parser.add_argument('--sizes', default='1000,10000',
                        help='comma-separated provider counts, loaded cumulatively')
    parser.add_argument('--threads', type=int, default=4, help='concurrent writers')
    parser.add_argument('--repeat', type=int, default=20, help='timed GETs per query')
    parser.add_argument('--budget', type=float, default=None,
                        help='stop loading a size after this many seconds and '
                             'measure at the count reached')
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(','))

    stack = None
    url = args.url
    if url is None:
        stack = _embedded(tempfile.mkdtemp(prefix='berth-bench-'))
        url = stack.placement_url
    results = []
    try:
        client = Client(url, args.token)
        loaded = 0
        for n in sizes:
            made, writes, secs = load(client, loaded, n - loaded, args.threads,
                                      args.budget)
            loaded += made
            print('loaded %d providers (%d writes) in %.1fs' % (loaded, writes, secs),
                  file=sys.stderr, flush=True)
            row = {'target': n, 'providers': loaded, 'writes': writes,
                   'load_s': round(secs, 1),
                   'writes_per_s': round(writes / secs, 1) if secs else None,
                   'queries': {}}
            for label, (matches, p50, p95) in time_queries(client, args.repeat).items():
                row['queries'][label] = {'matches': matches, 'p50_ms': p50,
                                         'p95_ms': p95}
            results.append(row)
    finally:
        if stack is not None:
            stack.stop()

    print('%-9s %-10s %-10s %-10s %-8s %-9s %-9s' % (
        'N', 'writes/s', 'query', '', 'matches', 'p50 ms', 'p95 ms'))
    print('-' * 70)
    for row in results:
        for label, q in row['queries'].items():
            print('%-9d %-10s %-21s %-8d %-9s %-9s' % (
                row['providers'], row['writes_per_s'], label, q['matches'],
                q['p50_ms'], q['p95_ms']))
    print(json.dumps({'benchmark': 'providers', 'deployment': 'embedded' if stack else url,
                      'threads': args.threads, 'repeat': args.repeat,
                      'results': results}, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
