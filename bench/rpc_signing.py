"""The CPU an RPC call's signature adds: signing on the client, verifying on the conductor.

Every message to a conductor is signed (common.rpc_trust.Signer, in the
sending process) and verified (common.rpc_trust.Verifier, before dispatch).
This measures both, per call, on distinct calls shaped as berth-api sends
them: the API's context (oslo.context's dict plus the names) and the
arguments of ``claim_resources`` (one consumer), ``claim_resources_many``
(``--claims`` claims), ``create_allocations`` and ``update_node``, each with
fresh uuids, signed for a conductor and verified by it after a JSON round
trip (what the wire does; the round trip itself is not counted).  CPU is
the thread's (``time.thread_time_ns``) around the call alone.

    .venv/bin/python -W ignore -m bench.rpc_signing [--calls 5000] [--claims 2]

Prints a table (p50/p95/mean microseconds of CPU per call: sign, verify,
both) per method and a final JSON line.  Issue 33's bound: <= 0.2 ms added
per call.
"""

import argparse
import json
import statistics
import time
from typing import Any
import uuid as uuidlib

from common import context as berth_context
from common import rpc, rpc_trust

KEY = 'bench-key-' * 4


def _uuid():
    return str(uuidlib.uuid4())


def _consumer():
    return {'uuid': _uuid(), 'allocations': {_uuid(): {'VCPU': 2, 'MEMORY_MB': 2048,
                                                        'DISK_GB': 20}},
            'project_id': _uuid(), 'user_id': _uuid(), 'consumer_type': 'INSTANCE',
            'check_generation': True, 'generation': None}


def _messages(claims):
    """method -> a maker of its ``args`` (distinct per call)."""
    return {
        'claim_resources': lambda: {'tree': _uuid(), 'consumers': [_consumer()],
                                    'call_id': _uuid()},
        'claim_resources_many': lambda: {'claims': [
            {'tree': _uuid(), 'consumers': [_consumer()]} for _ in range(claims)],
            'call_id': _uuid()},
        'create_allocations': lambda: {'allocation_ids': list(range(8)), 'wait': 5.0},
        'update_node': lambda: {'node': _uuid(), 'values': {'instance_uuid': None},
                                'call_id': _uuid()},
    }


def _context():
    ctx = berth_context.RequestContext(
        user_id=_uuid(), project_id=_uuid(), roles=['member', 'reader'],
        user_name='alice', project_name='demo', request_id='req-' + _uuid(),
        global_request_id='req-' + _uuid(), overwrite=False)
    return rpc.without_secrets(ctx.to_dict())


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(calls, claims):
    signer = rpc_trust.Signer('berth', KEY)
    verifier = rpc_trust.Verifier('conductor-1', {'berth': KEY}, {'berth': None},
                                  ttl=60)
    rows: dict[str, dict[str, Any]] = {}
    for method, make in _messages(claims).items():
        signs, verifies = [], []
        for _ in range(calls):
            message = {'method': method, 'args': make(), 'version': '1.9'}
            ctxt = _context()
            start = time.thread_time_ns()
            signed = signer.sign('conductor-1', ctxt, message)
            signs.append(time.thread_time_ns() - start)
            wire_ctxt, wire_message = json.loads(json.dumps(signed)), json.loads(
                json.dumps(message))
            start = time.thread_time_ns()
            verifier.verify(wire_ctxt, wire_message)
            verifies.append(time.thread_time_ns() - start)
        both = [a + b for a, b in zip(signs, verifies)]
        rows[method] = {name: {'p50_us': round(_pct(v, 0.5) / 1000, 1),
                               'p95_us': round(_pct(v, 0.95) / 1000, 1),
                               'mean_us': round(statistics.fmean(v) / 1000, 1)}
                        for name, v in (('sign', signs), ('verify', verifies),
                                        ('both', both))}
        rows[method]['bytes'] = len(json.dumps(signed)) + len(json.dumps(message))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--calls', type=int, default=5000)
    parser.add_argument('--claims', type=int, default=2)
    args = parser.parse_args(argv)
    rows = run(args.calls, args.claims)
    print('%-22s %6s | %-21s | %-21s | %-21s' % (
        'method', 'bytes', 'sign p50/p95/mean us', 'verify p50/p95/mean us',
        'both p50/p95/mean us'))
    for method, row in rows.items():
        print('%-22s %6d | %s | %s | %s' % (method, row['bytes'], *(
            '%6.1f %6.1f %6.1f' % (row[n]['p50_us'], row[n]['p95_us'], row[n]['mean_us'])
            for n in ('sign', 'verify', 'both'))))
    worst = max(row['both']['p95_us'] for row in rows.values())
    print(json.dumps({'bench': 'rpc_signing', 'calls': args.calls, 'claims': args.claims,
                      'methods': rows, 'worst_p95_us': worst,
                      'bound_us': 200, 'within_bound': worst <= 200}, sort_keys=True))


if __name__ == '__main__':
    main()
