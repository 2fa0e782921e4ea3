"""What one read of PostgreSQL's change token costs the reader: SQLAlchemy against the driver.

Every GET /allocation_candidates reads ``pg_current_snapshot()`` once
(db/change.py, PostgresWatcher) to learn whether what it holds in memory is
current.  This times that read on one autocommit connection to a throwaway
PostgreSQL server (tests/services.py, loopback), through SQLAlchemy's
``Connection.execute`` and on the driver's own cursor as the watcher does,
alternating, and prints wall and client CPU per read (the server's CPU is
the same for both).

    .venv/bin/python -m bench.change_token [--reads 3000] [--rounds 3]

2026-11-26 (issue 20), shared 2-CPU VM, psycopg2, 3 x 3,000 reads per
path, client CPU / wall per read:

    run                                  SQLAlchemy            driver cursor
    21:58 (the statement as sa.select)   91-107 / 165-210 us   45-49 / 125-135 us
    22:45 (this module; a CI rehearsal   45-46 / 74-79 us      11.3-11.6 / 30-31 us
           running beside it)

The host's speed moved between the two (bench/host_speed); within each
run the cursor costs a quarter to a half of SQLAlchemy's CPU.
"""

import argparse
import json
import sys
import time

import sqlalchemy as sa

from bench import candidates_servers as servers
from db import change


def _time(read, reads):
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(reads):
        read()
    return ((time.perf_counter() - t0) * 1e6 / reads,
            (time.process_time() - c0) * 1e6 / reads)


def run(reads, rounds):
    pg = servers.Postgres()
    try:
        engine = sa.create_engine(pg.new_database('change_token'))
        conn = engine.connect().execution_options(isolation_level='AUTOCOMMIT')
        raw = engine.raw_connection()
        driver = raw.driver_connection
        if driver is None:
            raise RuntimeError('no psycopg connection under the pool')
        driver.autocommit = True
        cursor = raw.cursor()

        def through_sqlalchemy():
            return conn.execute(change.SNAPSHOT_STATEMENT).scalar_one()

        def on_the_cursor():
            cursor.execute(change.SNAPSHOT)
            row = cursor.fetchone()
            if row is None:
                raise RuntimeError('the snapshot statement answered no row')
            return row[0]

        rows = []
        for n in range(rounds):
            for name, read in (('sqlalchemy', through_sqlalchemy), ('driver cursor', on_the_cursor)):
                wall, cpu = _time(read, reads)
                rows.append({'round': n + 1, 'path': name, 'wall_us': round(wall, 1),
                             'cpu_us': round(cpu, 1)})
        raw.close()
        conn.close()
        engine.dispose()
        return rows
    finally:
        pg.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--reads', type=int, default=3000)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args(argv)
    rows = run(args.reads, args.rounds)
    print('%-6s %-14s %10s %10s' % ('round', 'path', 'wall us', 'cpu us'))
    for r in rows:
        print('%-6s %-14s %10s %10s' % (r['round'], r['path'], r['wall_us'], r['cpu_us']))
    print(json.dumps({'benchmark': 'change_token', 'reads': args.reads, 'results': rows}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
