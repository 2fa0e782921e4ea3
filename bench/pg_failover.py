"""PostgreSQL primaries killed in turn under load, for minutes: the failover table.

    .venv/bin/python bench/pg_failover.py --minutes 10 [--gap 10]

A berth deployment (both APIs under gunicorn, three conductors, RabbitMQ,
etcd) on a Patroni primary + synchronous standby (tests/ha/), under the
chaos tier's load of claims, schedule-and-claims and node allocations.
Every cycle kills the primary's Patroni and postmaster (SIGKILL), waits for
the promotion and for writes to succeed again, restarts the killed node (it
rejoins as the standby), waits ``--gap`` seconds.  Prints one row per
failover (seconds from the kill) and a final JSON line; exits 1 on any lost
acknowledged write, 5xx other than 503, or other invariant violation.

berth reads from the standby (``[database] slave_connection``, multi-host
``prefer-standby``) and a stream of lag-tolerant reads (candidates, provider
searches, node lists) runs throughout: per failover (kill to rejoined) the
reads sent, their errors by status, the slowest, and how many were answered
2xx while the writes were failing; ``cand_primary``/``cand_standby``: the
candidate searches each server ran in the steady time before the kill
(``pg_stat_statements``).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.ha import patroni_cluster, pg_failover_run, read_stream  # noqa: E402

COLUMNS = ('killed', 'promoted', 'first_error', 'new_primary', 'first_success_after',
           'last_error', 'rejoined_after', 'errors_by_status', 'reads', 'read_errors',
           'worst_read', 'reads_ok_while_writes_failed', 'cand_primary', 'cand_standby')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--minutes', type=float, default=10)
    parser.add_argument('--gap', type=float, default=10,
                        help='seconds of load between a rejoin and the next kill')
    parser.add_argument('--workdir', default=None)
    args = parser.parse_args(argv)
    missing = patroni_cluster.missing()
    if missing:
        print('missing: %s' % missing, file=sys.stderr)
        return 2
    venv, took = patroni_cluster.ensure_venv()
    print('patroni venv %s (%.1f s to build)' % (venv, took), flush=True)
    print('load average: %s' % open('/proc/loadavg').read().strip(), flush=True)
    workdir = args.workdir or tempfile.mkdtemp(prefix='berth-ha-pg-bench-')
    run = pg_failover_run.FailoverRun(workdir, venv,
                                      out=lambda s: print(s, flush=True))
    found = ['did not finish']
    rows = []
    try:
        run.start()
        end = time.monotonic() + args.minutes * 60
        print(' | '.join(COLUMNS), flush=True)
        while time.monotonic() < end:
            result = run.failover()
            time.sleep(args.gap)
            row = run.report(result)
            row['cand_primary'] = row['searches_before']['primary']
            row['cand_standby'] = row['searches_before']['standby']
            rows.append(row)
            print(' | '.join(str(row.get(c)) for c in COLUMNS), flush=True)
        found = run.finish()
        records = run.recorder.snapshot()
        if run.reads is None:
            raise RuntimeError('the read stream never started')
        reads = run.reads.recorder.snapshot()
    finally:
        run.stop(print_logs=bool(found))
    summary = {
        'failovers': len(rows),
        'promoted_after_median': statistics.median(r['promoted_after'] for r in rows),
        'promoted_after_max': max(r['promoted_after'] for r in rows),
        'first_success_after_median': statistics.median(
            r['first_success_after'] for r in rows if r['first_success_after'] is not None),
        'first_success_after_max': max(
            r['first_success_after'] for r in rows if r['first_success_after'] is not None),
        'requests': len(records),
        'acknowledged_writes': len(pg_failover_run.acknowledged(records)),
        'answers_503': sum(1 for r in records if r['status'] == 503),
        'other_5xx': sum(1 for r in records if r['status'] and r['status'] >= 500
                         and r['status'] != 503),
        'no_answer': sum(1 for r in records if r['status'] is None),
        'reads': len(reads),
        'read_errors': read_stream.errors(reads),
        'reads_in_failovers': sum(r['reads'] for r in rows),
        'read_errors_in_failovers': sum(sum(r['read_errors'].values()) for r in rows),
        'worst_read': round(max((r['t1'] - r['t0'] for r in reads), default=0.0), 2),
        'reads_ok_while_writes_failed': sum(r['reads_ok_while_writes_failed'] or 0
                                            for r in rows),
        'candidate_searches_primary': sum(r['cand_primary'] or 0 for r in rows),
        'candidate_searches_standby': sum(r['cand_standby'] or 0 for r in rows),
        'violations': found,
    }
    searched = summary['candidate_searches_primary'] + summary['candidate_searches_standby']
    summary['primary_share_of_searches'] = (
        round(summary['candidate_searches_primary'] / searched, 4) if searched else None)
    print('load average: %s' % open('/proc/loadavg').read().strip(), flush=True)
    print(json.dumps(summary), flush=True)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
