"""Helpers for the legacy compute node tests: load rows, check the result over the API."""

import sqlalchemy as sa

from db import models
from tests import nova_cell

_CN = models.ComputeNode.__table__


def insert_legacy_rows(db, rows):
    """Put ``rows`` (from nova_cell.make_rows) into berth's own compute_nodes."""
    with db.engine.begin() as conn:
        conn.execute(_CN.insert(), nova_cell.legacy_values(rows))


def uuids_by_name(db):
    """{hypervisor_hostname: uuid} of berth's live compute_nodes rows."""
    with db.engine.connect() as conn:
        return dict(conn.execute(sa.select(_CN.c.hypervisor_hostname, _CN.c.uuid)
                                 .where(_CN.c.deleted == 0)).all())


def check_over_api(client, rows, uuids):
    """Every good row has exactly its expected inventories; returns the rows checked.

    ``uuids`` maps hypervisor_hostname to the uuid the node ended up with.
    Bad and deleted rows must have no provider.
    """
    providers = {p['name']: p['uuid']
                 for p in client.get('/resource_providers').json()['resource_providers']}
    checked = 0
    for row in rows:
        name = row['hypervisor_hostname']
        if row['expect'] is None:
            assert name not in providers, row
            continue
        assert providers[name] == uuids[name]
        resp = client.get('/resource_providers/%s/inventories' % uuids[name])
        assert resp.status_code == 200, resp.text
        got = {rc: (inv['total'], inv['max_unit'], inv['allocation_ratio'])
               for rc, inv in resp.json()['inventories'].items()}
        assert got == row['expect'], (row['id'], got)
        checked += 1
    return checked


def _names(client, query):
    resp = client.get('/resource_providers?' + query)
    assert resp.status_code == 200, resp.text
    return {p['name'] for p in resp.json()['resource_providers']}


def check_resource_queries(client, rows):
    """GET /resource_providers?resources=... agrees with the legacy columns."""
    good = [r for r in rows if r['expect'] is not None]

    def fits(row, rc, amount):
        if rc not in row['expect']:
            return False
        total, max_unit, ratio = row['expect'][rc]
        return amount <= max_unit and amount <= total * ratio

    for rc, amount in (('VCPU', 32), ('MEMORY_MB', 65536), ('DISK_GB', 100),
                       ('SRIOV_NET_VF', 16), ('NUMA_THREAD', 5), ('NUMA_MEMORY_MB', 3000)):
        want = {r['hypervisor_hostname'] for r in good if fits(r, rc, amount)}
        assert _names(client, 'resources=%s:%d' % (rc, amount)) == want, rc
    both = {r['hypervisor_hostname'] for r in good
            if fits(r, 'VCPU', 16) and fits(r, 'DISK_GB', 150)}
    assert _names(client, 'resources=VCPU:16,DISK_GB:150') == both
    shared = {r['hypervisor_hostname'] for r in good if r['host'].startswith('ceph-')}
    assert shared and _names(client, 'member_of=%s' % nova_cell.SHARED_AGGREGATE) == shared
