"""A stream of lag-tolerant reads beside the failover load, and what it saw per failover.

The reads berth sends to ``[database] slave_connection`` (doc/source/architecture.md,
"Where reads go"): ``GET /allocation_candidates``, open
``GET /resource_providers`` searches, ``GET /v1/nodes`` and
``GET /v1/nodes/detail``, each recorded (tests/chaos/load.Recorder, kind
``read``) in a recorder of their own, so the write invariants never see them.
"""

import random
import threading

from tests.chaos import load as chaos_load

PLACEMENT_HEADERS = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement 1.28'}
# the candidate search runs in a REPEATABLE READ transaction of its own
# (objects/candidates/finder.py): its BEGIN counts the searches a server ran
SEARCHES = ("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
            "WHERE query LIKE '%REPEATABLE READ%' AND query NOT LIKE '%pg_stat%'")
RESET = 'SELECT pg_stat_statements_reset()'


class Reader(chaos_load.Worker):
    """One thread of reads: a random one of the lag-tolerant kinds each step."""

    kind = 'read'

    def __init__(self, recorder, seed, stop, placement_url, baremetal_url):
        super().__init__(recorder, seed, stop, hold=0)
        self.placement, self.baremetal = placement_url, baremetal_url

    def step(self):
        rng = self.rng
        what = rng.choice(('candidates', 'candidates', 'providers', 'nodes', 'nodes_detail'))
        if what == 'candidates':
            url = '%s/allocation_candidates?resources=VCPU:%d,MEMORY_MB:%d&limit=%d' % (
                self.placement, rng.randint(1, 4), rng.choice((128, 256, 512)),
                rng.randint(1, 10))
            headers = PLACEMENT_HEADERS
        elif what == 'providers':
            url = '%s/resource_providers%s' % (
                self.placement, rng.choice(('', '?resources=VCPU:%d' % rng.randint(1, 4))))
            headers = PLACEMENT_HEADERS
        else:
            url = '%s/v1/nodes%s' % (self.baremetal, '/detail' if what == 'nodes_detail'
                                     else '')
            headers = chaos_load.BM_HEADERS
        self.rec.call(self.session, self.kind, what, None, 'GET', url, headers=headers)


class Reads(chaos_load.Threads):
    """``threads`` Reader threads into their own recorder, started and stopped together."""

    def __init__(self, seed, placement_url, baremetal_url, threads=2):
        self.recorder = chaos_load.Recorder()
        self.stopping = threading.Event()
        rng = random.Random(seed)
        self.workers = [Reader(self.recorder, rng.random(), self.stopping, placement_url,
                               baremetal_url) for _ in range(threads)]


def errors(records):
    """``{status: count}`` of the reads not answered 2xx (None: no answer)."""
    found = {}
    for r in records:
        if r['status'] is None or not 200 <= r['status'] < 300:
            found[r['status']] = found.get(r['status'], 0) + 1
    return found


def window(reads, killed, ended, writes_failing):
    """What the reads sent from ``killed`` to ``ended`` saw (one failover).

    ``writes_failing``: ``(first, last)`` monotonic times of the writes'
    errors (or None): the 2xx reads answered inside it are counted apart.
    """
    mine = [r for r in reads if killed <= r['t0'] < ended]
    ok_while = None
    if writes_failing and None not in writes_failing:
        first, last = writes_failing
        ok_while = sum(1 for r in mine if r['status'] is not None
                       and 200 <= r['status'] < 300 and r['t0'] >= first and r['t1'] <= last)
    return {'reads': len(mine), 'read_errors': errors(mine),
            'worst_read': round(max((r['t1'] - r['t0'] for r in mine), default=0.0), 2),
            'reads_ok_while_writes_failed': ok_while}


def searches(cluster):
    """``{node name: candidate searches run since the last reset}`` (None: not answered)."""
    found = {}
    for node in cluster.nodes:
        value = cluster.sql(node.name, SEARCHES)
        found[node.name] = int(value) if value not in (None, '') else None
    return found


def reset(cluster):
    for node in cluster.nodes:
        cluster.sql(node.name, RESET)
