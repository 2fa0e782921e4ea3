"""The compute-node object of seed 000 end to end: report, read-migrate.

A compute service reports its capacity (nova's resource tracker:
``update_compute_node(host, capacity)``, conductor/manager/compute_nodes.py);
:func:`report` creates the node or saves the fields that changed.  Callers
pass ``rules`` only while the upgrade gate is open (every conductor speaks
RPC 1.7, conductor/rpcapi/gate.py); ``rules=None`` keeps the old write path:

=================  =====================================  ==========================
flow               gate open (``rules``)                   gate closed (``None``)
=================  =====================================  ==========================
create             row + provider + inventories, one txn  legacy row only
read               an unmigrated row is migrated first,   the row as it is
                   in its own transaction, once
save (migrated)    inventories, provider generation CAS   the same
save (unmigrated)  (migrated on read before)               the row's columns (CAS)
=================  =====================================  ==========================

Read-migrate is idempotent under concurrent readers because the database
decides: the row is locked (``SELECT ... FOR UPDATE``), a row already having
its provider is left alone, a row without a uuid gets one by a conditional
UPDATE (``... WHERE uuid IS NULL``) and the provider uuid is unique, so a
reader that loses any of these races finds the row migrated on its re-read.
"""

from __future__ import annotations

import logging
from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.legacy import compute_node as cn_obj
from objects.legacy import compute_node_migration as migration
from objects.legacy import inventory_rules

LOG = logging.getLogger('berth.' + __name__)

_CN = models.ComputeNode.__table__
_RP = models.ResourceProvider.__table__

# what a capacity report may carry besides the writable fields
IDENTITY = ('uuid', 'hypervisor_hostname')
REPORTABLE = frozenset(cn_obj.WRITABLE) | frozenset(IDENTITY)
MIGRATED, ALREADY = 'migrated', 'already'


def _where_host(host, hypervisor_hostname):
    return sa.and_(_CN.c.deleted == 0, _CN.c.host == host,
                   _CN.c.hypervisor_hostname == hypervisor_hostname)


@db_api.reader
def find_id(ctx: RequestContext, host: str, hypervisor_hostname: str) -> int | None:
    """The id of the live node of ``host`` named ``hypervisor_hostname`` (None: none)."""
    return ctx.session.execute(sa.select(_CN.c.id).where(
        _where_host(host, hypervisor_hostname)).order_by(_CN.c.id).limit(1)).scalar()


@db_api.reader
def find_uuid(ctx: RequestContext, host: str, hypervisor_hostname: str) -> str | None:
    """The uuid of that node (its provider's, once migrated), for routing."""
    return ctx.session.execute(sa.select(_CN.c.uuid).where(
        _where_host(host, hypervisor_hostname)).order_by(_CN.c.id).limit(1)).scalar()


@db_api.writer
def migrate_once(ctx: RequestContext, node_id: int, rules: inventory_rules.Rules) -> str:
    """Migrate one row in this transaction: ``migrated``, or ``already`` when it was.

    The row is locked first, so a second reader waits for the first and then
    finds the provider.  BadComputeNode when the row cannot be migrated
    (nothing written); ConcurrentUpdate or DBDuplicateEntry when another
    writer won a race the lock did not cover (the caller re-reads).
    """
    row = ctx.session.execute(sa.select(_CN).where(_CN.c.id == node_id)
                              .where(_CN.c.deleted == 0).with_for_update()).first()
    if row is None:
        raise exception.ComputeNodeNotFound(node=node_id)
    if row.uuid is not None and ctx.session.execute(
            sa.select(_RP.c.id).where(_RP.c.uuid == row.uuid)).first() is not None:
        return ALREADY
    outcome = migration.migrate_row(ctx, inventory_rules.LegacyNode.from_row(row), rules)
    return ALREADY if outcome == 'unchanged' else MIGRATED


def read(ctx: RequestContext, node_id: int,
         rules: inventory_rules.Rules | None = None) -> cn_obj.ComputeNode:
    """The compute node ``node_id``; with ``rules`` migrated first if it is not yet.

    The migration runs in a transaction of its own, so it needs a caller
    outside any transaction (inside one the row is read as it is).  A row
    that cannot be migrated (BadComputeNode, a provider name taken) is read
    as it is and left for ``berth-manage db online_data_migrations`` to report.
    """
    node = cn_obj.get_by_id(ctx, node_id)
    if node.migrated or rules is None or db_api.in_transaction(ctx):
        return node
    try:
        migrate_once(ctx, node_id, rules)
    except inventory_rules.BadComputeNode as exc:
        LOG.warning('Compute node %s not migrated on read: %s', node_id, exc.reason)
    except (exception.ConcurrentUpdate, db_exc.DBDuplicateEntry) as exc:
        LOG.info('Compute node %s: another reader migrated it (%s)', node_id,
                 type(exc).__name__)
    except exception.BerthException as exc:
        LOG.warning('Compute node %s not migrated on read: %s', node_id, exc)
    return cn_obj.get_by_id(ctx, node_id)


def _check_report(host, capacity):
    if not isinstance(capacity, dict):
        raise exception.Invalid(reason='capacity must be an object')
    unknown = set(capacity) - REPORTABLE
    if unknown:
        raise exception.Invalid(reason='not a reportable compute node field: %s'
                                       % ', '.join(sorted(unknown)))
    if not isinstance(host, str) or not host.strip() or len(host) > 255:
        raise exception.Invalid(reason='host must be a non-empty string of at most '
                                       '255 characters')
    name = capacity.get('hypervisor_hostname')
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise exception.Invalid(reason='hypervisor_hostname must be a non-empty string')
    uuid = capacity.get('uuid')
    if uuid is not None and not uuidutils.is_uuid_like(uuid):
        raise exception.Invalid(reason='uuid %r is not a UUID' % (uuid,))


def _invalid(exc):
    return exception.Invalid(reason='compute node capacity cannot be used: %s'
                                    % exc.reason)


def report(ctx: RequestContext, host: str, capacity: dict[str, Any],
           rules: inventory_rules.Rules, new_path: bool) -> cn_obj.ComputeNode:
    """Create or save the compute node ``host`` reports (one attempt).

    ``capacity``: the WRITABLE fields, optionally ``hypervisor_hostname``
    (default: ``host``) and ``uuid`` (write-once: a different uuid for an
    existing node is Invalid, as nova's InvalidNodeConfiguration).
    ``new_path``: whether the upgrade gate is open (see the module doc).
    Raises Invalid for impossible values, ConcurrentUpdate when a write
    raced (re-run it), InventoryInUse when capacity would drop below what
    allocations use.  Call it outside a transaction.
    """
    _check_report(host, capacity)
    name = capacity.get('hypervisor_hostname') or host
    fields = {k: v for k, v in capacity.items() if k in cn_obj.WRITABLE}
    node_id = find_id(ctx, host, name)
    try:
        if node_id is None:
            return cn_obj.create(ctx, rules if new_path else None, host=host,
                                 hypervisor_hostname=name, uuid=capacity.get('uuid'),
                                 **fields)
        node = read(ctx, node_id, rules if new_path else None)
        if capacity.get('uuid') and node.uuid and capacity['uuid'] != node.uuid:
            raise exception.Invalid(
                reason='compute node %s has uuid %s; a uuid cannot change'
                       % (name, node.uuid))
        changes = {k: v for k, v in fields.items() if getattr(node, k) != v}
        if not changes:
            return node
        return cn_obj.update_capacity(ctx, node, rules, **changes)
    except inventory_rules.BadComputeNode as exc:
        raise _invalid(exc)
    except db_exc.DBDuplicateEntry as exc:
        raise exception.ConcurrentUpdate(
            what='compute node', reason='%s was created meanwhile (%s); retry'
                                        % (name, exc.columns))


def to_primitive(node: cn_obj.ComputeNode) -> dict[str, Any]:
    """What update_compute_node answers: the node's identity and capacity."""
    out = {k: getattr(node, k) for k in ('id', 'uuid', 'host', 'hypervisor_hostname')
           + cn_obj.WRITABLE}
    out.update(migrated=node.migrated, provider_generation=node.provider_generation)
    return out
