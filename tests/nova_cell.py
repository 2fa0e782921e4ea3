"""A database shaped like a Nova cell database, filled with varied compute nodes.

Used by the migration tests and ``bench/legacy_migration.py``.  Every row
carries what it must become (``expect``: class -> (total, max_unit, ratio))
or why it must be skipped (``bad``), computed here from the legacy columns
independently of the code under test.
"""

import json
import random
import uuid as uuid_lib

import sqlalchemy as sa

SHARED_AGGREGATE = '5e1d5e1d-0000-4000-8000-00000000a99e'
SHARED_PATTERN = 'ceph-*'
DEFAULT_RATIOS = {'cpu': 16.0, 'ram': 1.5, 'disk': 1.0}   # berth's option defaults

_META = sa.MetaData()

COMPUTE_NODES = sa.Table(
    'compute_nodes', _META,
    sa.Column('created_at', sa.DateTime), sa.Column('updated_at', sa.DateTime),
    sa.Column('deleted_at', sa.DateTime),
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('service_id', sa.Integer), sa.Column('host', sa.String(255)),
    sa.Column('vcpus', sa.Integer, nullable=False),
    sa.Column('memory_mb', sa.Integer, nullable=False),
    sa.Column('local_gb', sa.Integer, nullable=False),
    sa.Column('vcpus_used', sa.Integer, nullable=False),
    sa.Column('memory_mb_used', sa.Integer, nullable=False),
    sa.Column('local_gb_used', sa.Integer, nullable=False),
    sa.Column('hypervisor_type', sa.Text), sa.Column('hypervisor_version', sa.Integer),
    sa.Column('cpu_info', sa.Text), sa.Column('disk_available_least', sa.Integer),
    sa.Column('free_ram_mb', sa.Integer), sa.Column('free_disk_gb', sa.Integer),
    sa.Column('current_workload', sa.Integer), sa.Column('running_vms', sa.Integer),
    sa.Column('hypervisor_hostname', sa.String(255)), sa.Column('deleted', sa.Integer),
    sa.Column('host_ip', sa.String(39)), sa.Column('supported_instances', sa.Text),
    sa.Column('pci_stats', sa.Text), sa.Column('metrics', sa.Text),
    sa.Column('extra_resources', sa.Text), sa.Column('stats', sa.Text),
    sa.Column('numa_topology', sa.Text), sa.Column('ram_allocation_ratio', sa.Float),
    sa.Column('cpu_allocation_ratio', sa.Float), sa.Column('uuid', sa.String(36)),
    sa.Column('disk_allocation_ratio', sa.Float), sa.Column('mapped', sa.Integer),
)
sa.Table('instances', _META, sa.Column('id', sa.Integer, primary_key=True),
         sa.Column('uuid', sa.String(36)), sa.Column('host', sa.String(255)),
         sa.Column('deleted', sa.Integer))
sa.Table('services', _META, sa.Column('id', sa.Integer, primary_key=True),
         sa.Column('host', sa.String(255)), sa.Column('binary', sa.String(255)),
         sa.Column('deleted', sa.Integer))

LEGACY_COLUMNS = ('id', 'uuid', 'host', 'hypervisor_hostname', 'vcpus', 'memory_mb',
                  'local_gb', 'vcpus_used', 'memory_mb_used', 'local_gb_used',
                  'cpu_allocation_ratio', 'ram_allocation_ratio',
                  'disk_allocation_ratio', 'disk_available_least', 'pci_stats',
                  'numa_topology', 'deleted')


def _numa(pcpus_per_cell, pages_per_cell):
    cells = [{'nova_object.name': 'NUMACell', 'nova_object.data': {
        'id': i, 'cpuset': [], 'pcpuset': list(range(p)), 'memory': 4096,
        'mempages': [{'nova_object.data': {'size_kb': 4, 'total': 1024, 'used': 0,
                                           'reserved': 0}},
                     {'nova_object.data': {'size_kb': 2048, 'total': pg, 'used': 0,
                                           'reserved': 0}}]}}
        for i, (p, pg) in enumerate(zip(pcpus_per_cell, pages_per_cell))]
    return json.dumps({'nova_object.name': 'NUMATopology',
                       'nova_object.data': {'cells': cells}})


def _pci(vfs):
    return json.dumps({'nova_object.name': 'PciDevicePoolList', 'nova_object.data': {
        'objects': [{'nova_object.data': {
            'vendor_id': '8086', 'product_id': '154c', 'numa_node': 0, 'count': vfs,
            'tags': {'dev_type': 'type-VF', 'physical_network': 'physnet1'}}}]}})


def _ratio(value, default):
    return default if value in (None, 0.0) else value


def make_rows(count, seed=7):
    """``count`` varied compute node rows (dicts) with 'expect' or 'bad'."""
    rnd = random.Random(seed)
    rows = []
    for i in range(1, count + 1):
        kind = i % 25
        vcpus = rnd.choice([8, 16, 32, 64])
        row = {'id': i, 'uuid': str(uuid_lib.UUID(int=rnd.getrandbits(128), version=4)),
               'host': 'cmp-%05d' % i, 'hypervisor_hostname': 'cmp-%05d.cell1' % i,
               'vcpus': vcpus, 'memory_mb': rnd.choice([32768, 65536, 131072]),
               'local_gb': rnd.choice([200, 500, 1000]), 'vcpus_used': rnd.randint(0, 8),
               'memory_mb_used': rnd.randint(0, 4096), 'local_gb_used': rnd.randint(0, 50),
               'cpu_allocation_ratio': rnd.choice([None, 0.0, 4.0, 8.0]),
               'ram_allocation_ratio': rnd.choice([None, 0.0, 1.0]),
               'disk_allocation_ratio': rnd.choice([None, 1.0, 2.0]),
               'disk_available_least': None, 'pci_stats': None, 'numa_topology': None,
               'deleted': 0, 'bad': None}
        if kind == 1:
            row['uuid'] = None                              # pre-uuid row
        if kind in (2, 3):
            row['host'] = 'ceph-%05d' % i                   # shared storage
        if kind in (4, 5):
            row['pci_stats'] = _pci(255)
        if kind in (6, 7):
            row['numa_topology'] = _numa([4, 6], [512, 256])
        if kind == 8:
            row['disk_available_least'] = rnd.randint(10, 150)
        if kind == 9:
            row['deleted'] = row['id']                      # soft-deleted: ignored
        if kind == 10:
            row['vcpus'], row['bad'] = -4, 'vcpus is negative'
        if kind == 11:
            row['cpu_allocation_ratio'], row['bad'] = -1.0, 'cpu_allocation_ratio'
        if kind == 12:
            row['numa_topology'], row['bad'] = '{"cells": [{"id": 0', 'not valid JSON'
        if kind == 13:
            row['local_gb_used'] = row['local_gb'] * 3
            row['disk_allocation_ratio'] = 1.0
            row['bad'] = 'local_gb_used'
        row['expect'] = None if row['bad'] or row['deleted'] else _expect(row)
        rows.append(row)
    return rows


def _expect(row):
    cpu = _ratio(row['cpu_allocation_ratio'], DEFAULT_RATIOS['cpu'])
    ram = _ratio(row['ram_allocation_ratio'], DEFAULT_RATIOS['ram'])
    disk = _ratio(row['disk_allocation_ratio'], DEFAULT_RATIOS['disk'])
    out = {'VCPU': (row['vcpus'], row['vcpus'], cpu),
           'MEMORY_MB': (row['memory_mb'], row['memory_mb'], ram)}
    if not row['host'].startswith('ceph-'):
        least = row['disk_available_least']
        out['DISK_GB'] = (row['local_gb'], row['local_gb'] if least is None else least,
                          disk)
    if row['pci_stats']:
        out['SRIOV_NET_VF'] = (255, 255, 1.0)
    if row['numa_topology']:
        # the seed's NUMA model ([compute_migration] numa_model = seed)
        out['NUMA_SOCKET'] = (2, 1, 1.0)
        out['NUMA_CORE'] = (10, 6, 1.0)
        out['NUMA_THREAD'] = (10, 6, 1.0)
        out['NUMA_MEMORY_MB'] = (8192, 4096, 1.0)
    return out


def create(url, rows):
    """Create the Nova cell tables at ``url`` and insert ``rows``."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        _META.create_all(engine)
        with engine.begin() as conn:
            conn.execute(COMPUTE_NODES.insert(), [_columns(r) for r in rows])
    finally:
        engine.dispose()


def _columns(row):
    return {c: row[c] for c in LEGACY_COLUMNS}


def legacy_values(rows):
    """The rows as berth's own compute_nodes columns (for the online migration)."""
    return [{c: r[c] for c in LEGACY_COLUMNS if c != 'id'} | {'id': r['id']}
            for r in rows]


def set_conf(conf):
    """Point ``conf`` at the shared storage of these rows."""
    conf.set_override('shared_storage_hosts', [SHARED_PATTERN], group='compute_migration')
    conf.set_override('shared_storage_aggregate', SHARED_AGGREGATE,
                      group='compute_migration')
