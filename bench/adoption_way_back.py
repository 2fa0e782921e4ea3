"""The way back, timed: ``export placement`` of N compute providers, then ``verify placement``.

An embedded berth is filled through its REST API (N compute providers with
VCPU 16, MEMORY_MB 65536, DISK_GB 1000, one consumer per 4 VCPU of capacity
written with ``POST /allocations`` in batches, consumers spread over 20
projects and 3 consumer types), exported into a db-synced SQLite Placement
16 database (tests/placement_real.py builds its venv), Placement is started
on it and ``berth-manage verify placement`` compares every read.

    python -m bench.adoption_way_back --providers 1000 [--workers 8] [--sample N]

Prints one JSON line: sizes, export and verify seconds, reads, differences.
"""

import argparse
import json
import os
import tempfile
import time

import requests

from cli import manage
from tests import fixtures, placement_real

HEADERS = {'OpenStack-API-Version': 'placement 1.39', 'X-Auth-Token': 'admin'}
TYPES = ('INSTANCE', 'MIGRATION', 'BACKUP')


def _uuid(kind, n):
    return '%08x-0000-4000-8000-%012x' % ({'rp': 1, 'c': 2}[kind], n)


def populate(url, providers):
    """N compute providers and their consumers; the number of consumers."""
    s = requests.Session()
    s.headers.update(HEADERS)
    consumers: dict[str, dict] = {}
    done = 0
    for n in range(providers):
        rp = _uuid('rp', n)
        r = s.post(url + '/resource_providers', json={'name': 'cn%06d' % n, 'uuid': rp})
        assert r.status_code == 200, r.text
        r = s.put(url + '/resource_providers/%s/inventories' % rp, json={
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 65536},
                            'DISK_GB': {'total': 1000}}})
        assert r.status_code == 200, r.text
        for k in range(4):
            c = done + len(consumers)
            consumers[_uuid('c', c)] = {
                'allocations': {rp: {'resources': {'VCPU': 4, 'MEMORY_MB': 8192,
                                                   'DISK_GB': 40}}},
                'project_id': 'project-%02d' % (c % 20), 'user_id': 'user-%03d' % (c % 97),
                'consumer_type': TYPES[c % 3], 'consumer_generation': None}
        if len(consumers) >= 200 or n == providers - 1:
            r = s.post(url + '/allocations', json=consumers)
            assert r.status_code == 204, r.text
            done += len(consumers)
            consumers = {}
    return done


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--providers', type=int, default=1000)
    parser.add_argument('--workers', type=int, default=8)
    parser.add_argument('--sample', type=int, default=0,
                        help="verify's --sample (0: every provider)")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix='berth-way-back-')
    conf = fixtures.make_conf(os.path.join(work, 'state'))
    fixtures.migrated_sqlite(work, conf.state_path)
    berth = fixtures.start_embedded(conf)
    placement = None
    try:
        started = time.monotonic()
        consumers = populate(berth.placement_url, args.providers)
        populate_s = time.monotonic() - started
        cfg = os.path.join(work, 'berth.conf')
        with open(cfg, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n' % conf.state_path)
        target = placement_real.sqlite_url(os.path.join(work, 'placement.sqlite'))
        placement = placement_real.Placement(os.path.join(work, 'placement'),
                                             placement_real.require_venv(), target)
        placement.workers = 2
        placement.db_sync()
        started = time.monotonic()
        assert manage.main(['--config-file', cfg, 'export', 'placement',
                            '--connection', target]) == 0
        export_s = time.monotonic() - started
        placement.start(sync=False)
        started = time.monotonic()
        code = manage.main(['verify', 'placement', '--endpoint', placement.url,
                            '--token', 'admin', '--berth-endpoint', berth.placement_url,
                            '--workers', str(args.workers), '--sample', str(args.sample)])
        verify_s = time.monotonic() - started
        print(json.dumps({'providers': args.providers, 'consumers': consumers,
                          'sample': args.sample,
                          'populate_s': round(populate_s, 1),
                          'export_s': round(export_s, 2), 'verify_s': round(verify_s, 1),
                          'verify_exit': code}))
    finally:
        if placement is not None:
            placement.stop()
        berth.stop()


if __name__ == '__main__':
    main()
