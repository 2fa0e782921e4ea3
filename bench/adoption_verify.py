"""``verify placement`` timed at a large size, without filling berth through its API.

Builds the Placement 16 SQLite database of bench/adoption.py (N compute
roots, a tenth with two SR-IOV children, 8 consumers each), imports it into
an empty berth (``import placement``, in process), then serves the *same*
source file with a real Placement 16.0.0 (tests/placement_real.py; gunicorn,
``--placement-workers``) and the imported berth (embedded, in this process),
and times ``verify placement`` between the two for each ``--sample`` asked
(0: every provider), with its reads per kind.  Both sides hold the same data,
so every run must find no difference.

    python -m bench.adoption_verify --providers 10000 --sample 100
    python -m bench.adoption_verify --providers 100000 --sample 100   # the issue's size
    python -m bench.adoption_verify --providers 120000 --compare-only # the client's CPU

Prints a table and a final JSON line.  Exits 1 when verify finds a difference.
"""

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

from bench import adoption
from cli import adoption_verify
from common import context as berth_context
from objects import database
from objects.adoption import placement_import
from objects.adoption import placement_schema as ps
from tests import fixtures, placement_real, services


def _stamp(path):
    """``created_at`` on every row without one, as Placement writes it.

    Placement syncs its standard traits and classes with a ``created_at`` at
    start-up and ``GET /traits`` and ``/resource_classes`` take the newest
    over all rows: the source's rows without one would make them fail.
    """
    engine = sa.create_engine(placement_real.sqlite_url(path))
    with engine.begin() as conn:
        for table in ps.TABLES:
            if 'created_at' in table.c:
                conn.execute(table.update().where(table.c.created_at.is_(None))
                             .values(created_at=datetime.datetime(2026, 1, 1)))
    engine.dispose()


def _verify(placement_url, berth_url, sample, workers):
    """One verify run: (seconds, reads, differences, [(kind, reads, seconds)])."""
    phases = []

    def progress(line):
        print(line, flush=True)
        kind, rest = line[:22].strip(), line[22:].split()
        phases.append((kind, int(rest[0]), float(rest[3])))

    verifier = adoption_verify.Verifier(
        adoption_verify.Endpoint('placement', placement_url, 'admin'),
        adoption_verify.Endpoint('berth', berth_url, 'admin'),
        workers=workers, progress=progress, sample=sample,
        emit=lambda d: print('DIFFERENT ' + d.line(), flush=True))
    started = time.monotonic()
    report = verifier.run()
    return time.monotonic() - started, report.reads, len(report.differences), phases


def compare_only(providers):
    """CPU seconds of verify's own comparison of one list of N equal providers."""
    rps = [{'uuid': uuid.UUID(int=i + 1).hex, 'name': 'compute-%06d' % i,
            'generation': i % 40, 'parent_provider_uuid': None,
            'root_provider_uuid': uuid.UUID(int=i + 1).hex,
            'links': [{'rel': 'self', 'href': '/resource_providers/%d' % i}] * 6}
           for i in range(providers)]
    left = json.loads(json.dumps({'resource_providers': rps}))
    right = json.loads(json.dumps({'resource_providers': rps[::-1]}))
    cpu = time.process_time()
    diffs = adoption_verify.compare('/resource_providers', adoption_verify._canonical(left),
                                    adoption_verify._canonical(right))
    return time.process_time() - cpu, len(diffs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--providers', type=int, default=2000)
    parser.add_argument('--sample', type=int, action='append',
                        help="verify's --sample, repeatable (default: 100; 0: every "
                             'provider, far longer)')
    parser.add_argument('--workers', type=int, default=8, help="verify's --workers")
    parser.add_argument('--placement-workers', type=int, default=2,
                        help='gunicorn workers of the real Placement')
    parser.add_argument('--compare-only', action='store_true',
                        help="time only verify's comparison of one list of --providers "
                             'providers (no services)')
    args = parser.parse_args(argv)
    if args.compare_only:
        cpu, diffs = compare_only(args.providers)
        print(json.dumps({'benchmark': 'adoption_verify_compare', 'providers': args.providers,
                          'cpu_seconds': round(cpu, 2), 'differences': diffs}))
        return 1 if diffs else 0
    samples = args.sample or [100]
    venv = placement_real.require_venv()
    runs = []
    with tempfile.TemporaryDirectory(prefix='berth-bench-adoption-verify-') as tmp:
        src = os.path.join(tmp, 'placement.sqlite')
        started = time.monotonic()
        counts = adoption.build_source(src, args.providers)
        _stamp(src)
        built = time.monotonic() - started
        conf = fixtures.make_conf(os.path.join(tmp, 'state'))
        fixtures.fresh_database(tmp, conf)
        db = database.open_database(conf)
        try:
            started = time.monotonic()
            placement_import.run(berth_context.admin_context(db),
                                 placement_real.sqlite_url(src))
            imported = time.monotonic() - started
        finally:
            db.dispose()
        berth = fixtures.start_embedded(conf)
        placement = placement_real.Placement(os.path.join(tmp, 'placement'), venv,
                                             placement_real.sqlite_url(src))
        placement.workers = args.placement_workers
        try:
            placement.start(sync=False)
            for sample in samples:
                runs.append((sample,) + _verify(placement.url, berth.placement_url,
                                                sample, args.workers))
        except adoption_verify.VerifyError:
            # the log goes with the temporary directory: say why Placement went
            proc = placement.proc
            print('placement exited %s; its log ends:\n%s' % (
                proc and proc.poll(), services._tail(placement.log, 60)), file=sys.stderr)
            raise
        finally:
            placement.stop()
            berth.stop()
    print('source: %s (built in %.1f s, imported in %.1f s)' % (
        ', '.join('%d %s' % (n, t) for t, n in counts.items()), built, imported))
    print('%-8s | %8s | %7s | %5s | %s' % ('sample', 'seconds', 'reads', 'diffs',
                                          'reads (seconds) per kind'))
    for sample, seconds, reads, diffs, phases in runs:
        print('%-8s | %8.1f | %7d | %5d | %s' % (
            sample or 'all', seconds, reads, diffs,
            ', '.join('%s %d (%.1f)' % p for p in phases)))
    print(json.dumps({'benchmark': 'adoption_verify', 'providers': args.providers,
                      'workers': args.workers, 'placement_workers': args.placement_workers,
                      'source_rows': counts, 'import_s': round(imported, 1),
                      'runs': [{'sample': sample, 'seconds': round(seconds, 2),
                                'reads': reads, 'differences': diffs,
                                'phases': {k: {'reads': n, 'seconds': s}
                                           for k, n, s in phases}}
                               for sample, seconds, reads, diffs, phases in runs]}))
    return 1 if any(r[3] for r in runs) else 0


if __name__ == '__main__':
    sys.exit(main())
