"""An outside check of bench/candidates.py: a plain HTTP client against a running berth.

It imports nothing of berth or of the other benchmarks: standard library
only, its own random distinct amounts, so it measures what any scheduler
sees.  Against a berth holding the placeload topology (N computes, 3 sharing
storage providers; aggregates named by uuid5 of ``placeload-agg-<name>``):

    .venv/bin/python -m bench.placeload 1000 /tmp/outside           # SQLite file
    .venv/bin/berth serve --data-dir /tmp/outside --placement-port 18778 &
    python3 bench/outside_candidates.py --url http://127.0.0.1:18778 --requests 50

(``python -m bench.placeload 1000 DIR --connection postgresql+psycopg2://…``
and a config file naming that ``[database] connection`` for PostgreSQL.)
For each shape it times ``--requests`` GETs, every one a query never asked
before (distinct MEMORY_MB/DISK_GB amounts), then as many again with a
write before each (untimed): ``PUT /allocations/{consumer}`` holding VCPU 1
or 2 on every compute provider, which changes every provider (cold).
Prints p50/p95/p99 in ms per shape and mode, and a JSON line.
"""

import argparse
import http.client
import json
import random
import sys
import time
import urllib.parse
import uuid

AGG = {n: str(uuid.uuid5(uuid.NAMESPACE_DNS, 'placeload-agg-' + n)) for n in 'ABC'}
SHAPES = [('no limit', ''), ('limit=50', '&limit=50'),
          ('required=SSD', '&required=STORAGE_DISK_SSD'),
          ('member_of=in:A,B', '&member_of=in:%s,%s' % (AGG['A'], AGG['B'])),
          ('member_of=!C', '&member_of=!%s' % AGG['C'])]


def call(conn, method, path, body=None, version='1.39'):
    headers = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement ' + version}
    if body is not None:
        body = json.dumps(body)
        headers['Content-Type'] = 'application/json'
    conn.request(method, path, body, headers)
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, data


def percentile(values, pct):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(pct / 100.0 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', required=True)
    parser.add_argument('--requests', type=int, default=50)
    parser.add_argument('--seed', type=int, default=None)
    args = parser.parse_args()
    parts = urllib.parse.urlsplit(args.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    rng = random.Random(args.seed)
    # every (MEMORY_MB, DISK_GB) pair used at most once
    amounts = iter(rng.sample([(m, d) for m in range(200, 8000) for d in range(6, 60)],
                              len(SHAPES) * 2 * (args.requests + 2)))
    status, body = call(conn, 'GET', '/resource_providers?resources=VCPU:1', version='1.12')
    computes = [rp['uuid'] for rp in json.loads(body)['resource_providers']]
    consumer, project, vcpu = str(uuid.uuid4()), str(uuid.uuid4()), 0
    results = {}
    for label, shape in SHAPES:
        for mode in ('distinct', 'cold'):
            times: list[float] = []
            count = 0
            for i in range(args.requests + 2):          # the first two: warm-up
                mem, disk = next(amounts)
                query = ('/allocation_candidates?resources=VCPU:1,MEMORY_MB:%d,DISK_GB:%d%s'
                         % (mem, disk, shape))
                if mode == 'cold':
                    vcpu = vcpu % 2 + 1
                    status, body = call(conn, 'PUT', '/allocations/' + consumer, {
                        'allocations': {u: {'resources': {'VCPU': vcpu}} for u in computes},
                        'project_id': project, 'user_id': project}, version='1.12')
                    assert status == 204, (status, body[:200])
                t0 = time.perf_counter()
                status, body = call(conn, 'GET', query)
                elapsed = (time.perf_counter() - t0) * 1000
                assert status == 200, (status, body[:200])
                if i >= 2:
                    times.append(elapsed)
                count = len(json.loads(body)['allocation_requests'])
            results['%s/%s' % (label, mode)] = {
                'p50_ms': round(percentile(times, 50), 2),
                'p95_ms': round(percentile(times, 95), 2),
                'p99_ms': round(percentile(times, 99), 2), 'candidates': count}
            r = results['%s/%s' % (label, mode)]
            print('%-18s %-9s p50 %7.2f  p95 %7.2f  p99 %7.2f  ms  (%d candidates)' % (
                label, mode, r['p50_ms'], r['p95_ms'], r['p99_ms'], count), flush=True)
    print(json.dumps({'benchmark': 'outside_candidates', 'url': args.url,
                      'requests': args.requests, 'computes': len(computes),
                      'results': results}, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
