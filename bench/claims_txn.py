"""A conductor's claim transactions alone: its own CPU per claim on PostgreSQL, no RPC.

The matrix bench (``bench.claims --matrix``) counts every process, so on a
shared 2-core host its conductor figures move by more than a change to the
claim transaction does.  This one runs the group commit in-process
(conductor.manager.claims.Claims.claim_many, calls of ``--per-call``
new-consumer claims, one after another from one thread) against a
throwaway PostgreSQL (tests/services.py) and reports this process's CPU
(``time.process_time``: the conductor's side, PostgreSQL's apart) per
claim, after a warm-up that compiles every statement shape it uses.

Run it from any checkout for an A/B of the claim path::

    PYTHONPATH=CHECKOUT python -W ignore bench/claims_txn.py --per-call 1 2 5

(the script imports berth from PYTHONPATH, so the same file measures
another tree's code).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib

from common import context as berth_context
from common.claim_contract import ClaimConsumer
from conductor.manager import claims as conductor_claims
from db import api as db_api
from objects.placement import inventory as inv_obj
from objects.placement import resource_provider as rp_obj
from tests import fixtures, services

PROVIDERS = 20


def _database():
    workdir = tempfile.mkdtemp(prefix='berth-claims-txn-')
    pg = services.PostgreSQL(workdir).start()
    cfg = os.path.join(workdir, 'berth.conf')
    with open(cfg, 'w') as f:
        f.write('[database]\nconnection = %s\n' % pg.url)
    manage = os.path.join(os.path.dirname(sys.executable), 'berth-manage')
    subprocess.run([manage, '--config-file', cfg, 'db', 'sync'], check=True,
                   capture_output=True)
    return pg, workdir


def _providers(ctx, count):
    uuids = []
    for i in range(count):
        uuid = str(uuidlib.uuid4())
        rp_obj.create(ctx, 'txn-%d' % i, uuid)
        inv_obj.replace_all(ctx, uuid, 0, [inv_obj.from_record(
            'VCPU', {'total': 1000000, 'max_unit': 1000000})], True)
        uuids.append(uuid)
    return uuids


def _call(rps, n, per_call):
    return [(rps[(n + i) % len(rps)],
             [ClaimConsumer(str(uuidlib.uuid4()), {rps[(n + i) % len(rps)]: {'VCPU': 1}},
                            'txn-p', 'txn-u', check_generation=True)])
            for i in range(per_call)]


def _run(claims, ctx, rps, per_call, calls):
    """CPU ms per claim of ``calls`` calls of ``per_call`` claims (all granted)."""
    todo = [_call(rps, n, per_call) for n in range(calls)]
    start = time.process_time()
    for call in todo:
        errors = claims.claim_many(ctx, call)
        assert not any(errors), errors
    return 1000.0 * (time.process_time() - start) / (per_call * calls)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--per-call', type=int, nargs='+', default=[1, 2, 5])
    parser.add_argument('--claims', type=int, default=2000, help='per size and round')
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args(argv)
    pg, workdir = _database()
    try:
        conf = fixtures.make_conf(os.path.join(workdir, 'state'),
                                  **{'database.connection': pg.url})
        db = db_api.Database(pg.url)
        ctx = berth_context.admin_context(db)
        claims = conductor_claims.Claims(conf)
        rps = _providers(ctx, PROVIDERS)
        for per_call in args.per_call:
            _run(claims, ctx, rps, per_call, 50)         # warm-up: every shape compiled
        results = {per_call: [round(_run(claims, ctx, rps, per_call,
                                         args.claims // per_call), 3)
                              for _ in range(args.rounds)]
                   for per_call in args.per_call}
        db.dispose()
    finally:
        pg.stop()
    for per_call, values in results.items():
        print('claims per call %2d: conductor CPU ms per claim %s' % (
            per_call, ' '.join('%.3f' % v for v in values)))
    print(json.dumps({'per_call': results, 'claims': args.claims, 'rounds': args.rounds}))


if __name__ == '__main__':
    main()
