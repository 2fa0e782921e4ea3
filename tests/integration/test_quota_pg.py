"""Quota enforcement on PostgreSQL: a burst from one project across conductors and trees.

READ COMMITTED lets two transactions count usage without seeing each other;
the project row lock taken before counting (objects.placement.quota.lock) must make
them queue, so the burst ends exactly at the limit.
"""

import collections
import threading
import uuid as uuidlib

import pytest

from common import context as berth_context
from common import exception
from common.claim_contract import ClaimConsumer
from conductor.manager import claims
from db import api as db_api
from objects.placement import inventory as inv_obj
from objects.placement import project_usage
from objects.placement import quota as quota_obj
from objects.placement import resource_provider as rp_obj
from tests import fixtures
from tests.integration import conftest

pytestmark = conftest.MARKS


@pytest.fixture
def pg_ctx(pg_synced):
    db = db_api.Database(pg_synced)
    yield lambda: berth_context.admin_context(db)
    db.dispose()


def _provider(ctx):
    uuid = str(uuidlib.uuid4())
    rp_obj.create(ctx, 'pgq-' + uuid, uuid)
    inv_obj.replace_all(ctx, uuid, 0, [inv_obj.from_record('VCPU', {'total': 100})], True)
    return uuid


def test_burst_across_conductors_and_trees_stops_at_the_limit(tmp_path, pg_ctx):
    conf = fixtures.make_conf(tmp_path)
    conf.set_override('enforce', True, group='quota')
    project = 'pgq-%s' % uuidlib.uuid4().hex[:8]
    providers = [_provider(pg_ctx()) for _ in range(4)]
    quota_obj.set_limits(pg_ctx(), project, quota_obj.Limits(resources={'VCPU': 12}))
    conductors = [claims.Claims(conf) for _ in range(3)]
    results = collections.Counter()
    lock = threading.Lock()
    threads = 10
    start = threading.Barrier(threads)

    def worker(i):
        start.wait()
        for n in range(4):
            rp = providers[(i + n) % len(providers)]
            consumer = ClaimConsumer(str(uuidlib.uuid4()), {rp: {'VCPU': 1}}, project,
                                     'u%d' % i, 'INSTANCE', check_generation=True)
            try:
                conductors[i % 3].claim_resources(pg_ctx(), 'tree-%d' % i, [consumer])
                outcome = 'granted'
            except exception.BerthException as exc:
                outcome = type(exc).__name__
            with lock:
                results[outcome] += 1

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert results == {'granted': 12, 'QuotaExceeded': 28}, results
    assert project_usage.get_totals(pg_ctx(), project) == {'VCPU': 12}
