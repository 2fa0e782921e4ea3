"""The placeload topology, written with bulk inserts straight into the database.

N compute providers (VCPU 32 max_unit 16, MEMORY_MB 8192 min_unit 128,
DISK_GB 8192 min_unit 5); aggregates cycle [A], [A,B], [A,B,C]; traits cycle
[AVX2], [AVX2,SSE2], [AVX2,SSE2,STORAGE_DISK_SSD]; every 10th compute has no
disk and shares the 3 storage providers through aggregate S.

``nested`` (a large region's shape): every 5th compute (20 %) is a tree
instead: its VCPU and MEMORY_MB move to two NUMA children (VCPU 16,
MEMORY_MB 4096 each) and a NIC child holds NET_BW_EGR_KILOBIT_PER_SEC
(10,000,000); the root keeps its disk (or shares storage), traits and
aggregates.

    .venv/bin/python -m bench.placeload 1000 DIR [--connection URL] [--nested]

writes it into DIR/berth.sqlite (or the database at URL), migrated, for
``berth serve --data-dir DIR`` (bench/outside_candidates.py).
"""

import os
import random
import sys
import tempfile
import time
import uuid as uuidlib

import sqlalchemy as sa

from db import models

AGGS = {name: str(uuidlib.uuid5(uuidlib.NAMESPACE_DNS, 'placeload-agg-' + name))
        for name in ('A', 'B', 'C', 'S')}
TRAITS = ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD']
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
N_SHARING = 3


def _ids(conn, table, names):
    rows = conn.execute(sa.select(table.c.name, table.c.id)
                        .where(table.c.name.in_(names))).all()
    return dict(rows)


NIC_CLASS = 'NET_BW_EGR_KILOBIT_PER_SEC'


# computes per transaction of load(): the rows of one chunk are built, inserted
# and let go before the next (all 1,000,000 at once were ~9 M dicts, GBs)
CHUNK = 20000
# SQLite page cache of the loading connection (negative: KiB), 1 GiB
_CACHE_PRAGMA = 'PRAGMA cache_size = -1048576'
_VERSION_4 = (0x4 << 76) | (0x2 << 62)       # the version nibble, the RFC 4122 variant
_RANDOM_LOW = (1 << 62) - 1                   # clock_seq and node: random
_RANDOM_MID = 0xfff << 64                     # time_hi: random


class AscendingUuids:
    """Valid random version-4 UUIDs, ascending in the order they are drawn.

    The top 48 bits are a counter from a random start (per load); the other
    62 bits not fixed by the version and variant are random.  Random uuid4s
    land all over the unique uuid index: every chunk's commit then dirtied
    nearly every page of it, so a chunk's cost grew with the table (1,000,000
    computes took 12x the time of 100,000).  Ascending ones are appended.
    """

    def __init__(self, rng=None):
        self._rng = rng or random.SystemRandom()
        self._next = self._rng.getrandbits(46)      # 2 ** 46 draws of headroom

    def __call__(self):
        high = self._next
        self._next += 1
        bits = self._rng.getrandbits(74)
        value = ((high << 80) | ((bits >> 62) << 64 & _RANDOM_MID)
                 | (bits & _RANDOM_LOW) | _VERSION_4)
        return str(uuidlib.UUID(int=value))


def load(engine, n, nested=False):
    """Insert the topology for ``n`` computes (plus 3 sharing providers); return n.

    With ``nested`` every 5th compute gets two NUMA children and a NIC child
    (see the module docstring); their ids follow the computes' and the
    sharing providers'.  Written CHUNK computes per transaction.
    """
    rp_t = models.ResourceProvider.__table__
    now = models._now()
    with engine.begin() as conn:
        rcs = _ids(conn, models.ResourceClass.__table__,
                   ['VCPU', 'MEMORY_MB', 'DISK_GB', NIC_CLASS])
        traits = _ids(conn, models.Trait.__table__, TRAITS + [SHARING_TRAIT])
        agg_t = models.PlacementAggregate.__table__
        conn.execute(agg_t.insert(), [{'uuid': u, 'created_at': now}
                                      for u in AGGS.values()])
        aggs = dict(conn.execute(sa.select(agg_t.c.uuid, agg_t.c.id)).all())
        agg_id = {name: aggs[u] for name, u in AGGS.items()}
        base = conn.execute(sa.select(sa.func.coalesce(sa.func.max(rp_t.c.id), 0))
                            ).scalar_one()
    ids = {'rc': rcs, 'trait': traits, 'agg': agg_id, 'base': base, 'now': now,
           'uuid': AscendingUuids(random.Random())}
    child_id = base + n + N_SHARING
    for start in range(0, n, CHUNK):
        rows = _Rows()
        for i in range(start, min(n, start + CHUNK)):
            child_id = _compute(rows, ids, i, nested, child_id)
        _insert(engine, rows)
    rows = _Rows()
    for j in range(N_SHARING):
        rp_id = base + 1 + n + j
        rows.providers.append(_provider(ids, rp_id, 'shared-storage-%d' % j))
        rows.invs.append(_inv(rp_id, rcs['DISK_GB'], 100000, min_unit=5))
        rows.traits.append(_tag(rp_id, 'trait_id', traits[SHARING_TRAIT], now))
        rows.aggs.append(_tag(rp_id, 'aggregate_id', agg_id['S'], now))
    _insert(engine, rows)
    return n


class _Rows:
    """The rows of one chunk, by table."""
    __slots__ = ('providers', 'invs', 'traits', 'aggs')

    def __init__(self):
        self.providers, self.invs, self.traits, self.aggs = [], [], [], []


def _provider(ids, rp_id, name, parent=None):
    return {'id': rp_id, 'uuid': ids['uuid'](), 'name': name, 'generation': 0,
            'parent_provider_id': parent, 'root_provider_id': parent or rp_id,
            'created_at': ids['now']}


def _tag(rp_id, column, value, now):
    return {'resource_provider_id': rp_id, column: value, 'created_at': now}


def _compute(rows, ids, i, nested, child_id):
    """Compute ``i`` (and its children when nested) into ``rows``; the last child id."""
    rcs, now = ids['rc'], ids['now']
    rp_id = ids['base'] + 1 + i
    rows.providers.append(_provider(ids, rp_id, 'compute-%d' % i))
    if nested and i % 5 == 4:
        for kind in ('numa0', 'numa1', 'nic'):
            child_id += 1
            rows.providers.append(_provider(ids, child_id, 'compute-%d-%s' % (i, kind),
                                            parent=rp_id))
            if kind == 'nic':
                rows.invs.append(_inv(child_id, rcs[NIC_CLASS], 10000000))
            else:
                rows.invs.append(_inv(child_id, rcs['VCPU'], 16))
                rows.invs.append(_inv(child_id, rcs['MEMORY_MB'], 4096, min_unit=128))
    else:
        rows.invs.append(_inv(rp_id, rcs['VCPU'], 32, max_unit=16))
        rows.invs.append(_inv(rp_id, rcs['MEMORY_MB'], 8192, min_unit=128))
    diskless = i % 10 == 9
    if not diskless:
        rows.invs.append(_inv(rp_id, rcs['DISK_GB'], 8192, min_unit=5))
    for name in TRAITS[:i % 3 + 1]:
        rows.traits.append(_tag(rp_id, 'trait_id', ids['trait'][name], now))
    for name in 'ABC'[:i % 3 + 1]:
        rows.aggs.append(_tag(rp_id, 'aggregate_id', ids['agg'][name], now))
    if diskless:
        rows.aggs.append(_tag(rp_id, 'aggregate_id', ids['agg']['S'], now))
    return child_id


def _insert(engine, rows):
    """One transaction of executemany inserts; parents before their children."""
    with engine.begin() as conn:
        if conn.dialect.name == 'sqlite':
            conn.exec_driver_sql(_CACHE_PRAGMA)
        conn.execute(models.ResourceProvider.__table__.insert(), rows.providers)
        conn.execute(models.Inventory.__table__.insert(), rows.invs)
        if rows.traits:
            conn.execute(models.ResourceProviderTrait.__table__.insert(), rows.traits)
        if rows.aggs:
            conn.execute(models.ResourceProviderAggregate.__table__.insert(), rows.aggs)


def _inv(rp_id, rc_id, total, min_unit=1, max_unit=None):
    return {'resource_provider_id': rp_id, 'resource_class_id': rc_id,
            'total': total, 'reserved': 0, 'min_unit': min_unit,
            'max_unit': max_unit or total, 'step_size': 1,
            'allocation_ratio': 1.0, 'created_at': models._now()}


def conf_for(state, connection=None):
    """berth's configuration of a bench state directory (noauth; ``connection`` or its SQLite)."""
    from common.conf import builder

    overrides = {'state_path': state, 'api.auth_strategy': 'noauth2',
                 'database.sqlite_synchronous': False}
    if connection:
        overrides['database.connection'] = connection
    return builder.build(config_files=[], overrides=overrides)


def load_state(n, connection=None, state=None, nested=False):
    """A state directory (and database) holding the topology for n computes."""
    from common import context as berth_context
    from objects import bootstrap, database

    state = state or tempfile.mkdtemp(prefix='berth-bench-candidates-')
    os.makedirs(state, exist_ok=True)
    db = database.open_database(conf_for(state, connection))
    database.upgrade(db)
    bootstrap.sync_standards(berth_context.admin_context(db))
    t0 = time.perf_counter()
    load(db.engine, n, nested=nested)
    print('N=%d%s loaded in %.1fs (%s)' % (n, ' nested' if nested else '',
                                           time.perf_counter() - t0,
                                           connection or 'SQLite'), file=sys.stderr)
    db.dispose()
    return state


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description='load the placeload topology')
    parser.add_argument('computes', type=int)
    parser.add_argument('data_dir')
    parser.add_argument('--connection', default=None,
                        help='a server database (default: DIR/berth.sqlite)')
    parser.add_argument('--nested', action='store_true',
                        help='20 %% of computes with two NUMA children and a NIC child')
    args = parser.parse_args(argv)
    load_state(args.computes, args.connection, state=args.data_dir, nested=args.nested)
    return 0


if __name__ == '__main__':
    sys.exit(main())
