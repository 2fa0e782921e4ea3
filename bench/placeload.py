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


def load(engine, n, nested=False):
    """Insert the topology for ``n`` computes (plus 3 sharing providers); return n.

    With ``nested`` every 5th compute gets two NUMA children and a NIC child
    (see the module docstring); their ids follow the computes' and the
    sharing providers'.
    """
    rp_t = models.ResourceProvider.__table__
    inv_t = models.Inventory.__table__
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
        providers, invs, rp_traits, rp_aggs = [], [], [], []
        child_id = base + n + N_SHARING
        for i in range(n):
            rp_id = base + 1 + i
            providers.append({'id': rp_id, 'uuid': str(uuidlib.uuid4()),
                              'name': 'compute-%d' % i, 'generation': 0,
                              'root_provider_id': rp_id, 'created_at': now})
            if nested and i % 5 == 4:
                for kind in ('numa0', 'numa1', 'nic'):
                    child_id += 1
                    providers.append({'id': child_id, 'uuid': str(uuidlib.uuid4()),
                                      'name': 'compute-%d-%s' % (i, kind), 'generation': 0,
                                      'parent_provider_id': rp_id,
                                      'root_provider_id': rp_id, 'created_at': now})
                    if kind == 'nic':
                        invs.append(_inv(child_id, rcs[NIC_CLASS], 10000000))
                    else:
                        invs.append(_inv(child_id, rcs['VCPU'], 16))
                        invs.append(_inv(child_id, rcs['MEMORY_MB'], 4096, min_unit=128))
            else:
                invs.append(_inv(rp_id, rcs['VCPU'], 32, max_unit=16))
                invs.append(_inv(rp_id, rcs['MEMORY_MB'], 8192, min_unit=128))
            diskless = i % 10 == 9
            if not diskless:
                invs.append(_inv(rp_id, rcs['DISK_GB'], 8192, min_unit=5))
            for name in TRAITS[:i % 3 + 1]:
                rp_traits.append({'resource_provider_id': rp_id,
                                  'trait_id': traits[name], 'created_at': now})
            for name in 'ABC'[:i % 3 + 1]:
                rp_aggs.append({'resource_provider_id': rp_id,
                                'aggregate_id': agg_id[name], 'created_at': now})
            if diskless:
                rp_aggs.append({'resource_provider_id': rp_id,
                                'aggregate_id': agg_id['S'], 'created_at': now})
        for j in range(N_SHARING):
            rp_id = base + 1 + n + j
            providers.append({'id': rp_id, 'uuid': str(uuidlib.uuid4()),
                              'name': 'shared-storage-%d' % j, 'generation': 0,
                              'root_provider_id': rp_id, 'created_at': now})
            invs.append(_inv(rp_id, rcs['DISK_GB'], 100000, min_unit=5))
            rp_traits.append({'resource_provider_id': rp_id,
                              'trait_id': traits[SHARING_TRAIT], 'created_at': now})
            rp_aggs.append({'resource_provider_id': rp_id,
                            'aggregate_id': agg_id['S'], 'created_at': now})
        providers.sort(key=lambda row: row['id'])      # parents before children
        conn.execute(rp_t.insert(), [dict(row, parent_provider_id=row.get(
            'parent_provider_id')) for row in providers])
        conn.execute(inv_t.insert(), invs)
        conn.execute(models.ResourceProviderTrait.__table__.insert(), rp_traits)
        conn.execute(models.ResourceProviderAggregate.__table__.insert(), rp_aggs)
    return n


def _inv(rp_id, rc_id, total, min_unit=1, max_unit=None):
    return {'resource_provider_id': rp_id, 'resource_class_id': rc_id,
            'total': total, 'reserved': 0, 'min_unit': min_unit,
            'max_unit': max_unit or total, 'step_size': 1,
            'allocation_ratio': 1.0, 'created_at': models._now()}


def main(argv=None):
    import argparse

    from bench import candidates_servers

    parser = argparse.ArgumentParser(description='load the placeload topology')
    parser.add_argument('computes', type=int)
    parser.add_argument('data_dir')
    parser.add_argument('--connection', default=None,
                        help='a server database (default: DIR/berth.sqlite)')
    parser.add_argument('--nested', action='store_true',
                        help='20 %% of computes with two NUMA children and a NIC child')
    args = parser.parse_args(argv)
    candidates_servers.load(args.computes, args.connection, state=args.data_dir,
                            nested=args.nested)
    return 0


if __name__ == '__main__':
    import sys
    sys.exit(main())
