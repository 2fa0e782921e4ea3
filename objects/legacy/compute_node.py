"""Legacy compute nodes whose capacity moves into a resource provider's inventories.

A row of ``compute_nodes`` is *migrated* once a resource provider with the
row's uuid exists.  From then on the provider's inventories are the truth:
:func:`get_by_id` reads vcpus, memory_mb, local_gb, the allocation ratios and
disk_available_least from them, and :func:`update_capacity` writes them there
(and mirrors them into the row), so callers do not notice where capacity
lives.  Before that the row's columns are read and written.

Writes are compare-and-swap: on the provider generation once migrated, on
the row's ``updated_at`` (bumped by every write, the migration included)
before.  :func:`apply_plan` is the one place a legacy row's plan is written
as a provider, inventories and aggregates; the migration and the import use
it too.
"""

from __future__ import annotations

from collections.abc import Set
import dataclasses
from typing import Any, cast

import os_resource_classes as orc
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.legacy import inventory_rules
from objects.placement import aggregate, generation
from objects.placement import inventory as inv_obj
from objects.placement import resource_class as rc_obj
from objects.placement import resource_provider as rp_obj

_CN = models.ComputeNode.__table__
_RP = models.ResourceProvider.__table__

CAPACITY = ('vcpus', 'memory_mb', 'local_gb', 'cpu_allocation_ratio',
            'ram_allocation_ratio', 'disk_allocation_ratio', 'disk_available_least',
            'pci_stats', 'numa_topology')
WRITABLE = CAPACITY + ('vcpus_used', 'memory_mb_used', 'local_gb_used')


@dataclasses.dataclass
class ComputeNode(inventory_rules.LegacyNode):
    """A compute node as callers see it, wherever its capacity lives."""
    updated_at: object = None
    # None while the row is not migrated; the provider's generation once it is
    provider_generation: int | None = None

    @property
    def migrated(self) -> bool:
        return self.provider_generation is not None


def _from_inventories(node, gen, inventories):
    """Overlay the capacity the provider holds onto the row's values."""
    node.provider_generation = gen
    by_rc = {i.resource_class: i for i in inventories}
    for rc, total, ratio in ((orc.VCPU, 'vcpus', 'cpu_allocation_ratio'),
                             (orc.MEMORY_MB, 'memory_mb', 'ram_allocation_ratio'),
                             (orc.DISK_GB, 'local_gb', 'disk_allocation_ratio')):
        inv = by_rc.get(rc)
        if inv is not None:
            setattr(node, total, inv.total)
            setattr(node, ratio, inv.allocation_ratio)
        elif rc != orc.DISK_GB:
            # no inventory means nothing to offer (shared disk keeps the row's value)
            setattr(node, total, 0)
    disk = by_rc.get(orc.DISK_GB)
    if disk is not None and node.disk_available_least is not None:
        node.disk_available_least = disk.max_unit
    return node


def _load(ctx, row):
    values = {f.name: row._mapping[f.name] for f in dataclasses.fields(ComputeNode)
              if f.name in row._mapping}
    node = ComputeNode(**values)
    if node.uuid is None:
        return node
    try:
        gen, inventories = inv_obj.get_all(ctx, node.uuid)
    except exception.ResourceProviderNotFound:
        return node
    return _from_inventories(node, gen, inventories)


def _live():
    return sa.select(_CN).where(_CN.c.deleted == 0)


@db_api.reader
def get_by_id(ctx: RequestContext, node_id: int) -> ComputeNode:
    """The compute node with this id (ComputeNodeNotFound when absent or deleted)."""
    row = ctx.session.execute(_live().where(_CN.c.id == node_id)).first()
    if row is None:
        raise exception.ComputeNodeNotFound(node=node_id)
    return _load(ctx, row)


@db_api.reader
def get_by_uuid(ctx: RequestContext, uuid: str) -> ComputeNode:
    row = ctx.session.execute(_live().where(_CN.c.uuid == uuid)).first()
    if row is None:
        raise exception.ComputeNodeNotFound(node=uuid)
    return _load(ctx, row)


@db_api.writer
def create(ctx: RequestContext, rules: inventory_rules.Rules | None = None,
           **values: Any) -> ComputeNode:
    """Insert a compute node; with ``rules``, its provider and inventories too.

    With ``rules`` (the new write path, see objects.legacy.compute_node_flows)
    the row gets a uuid when it has none and the row, the provider named
    after its hypervisor_hostname and its inventories are written in this
    one transaction: BadComputeNode (impossible values) or a provider error
    (DuplicateProvider ...) leaves nothing behind.  Without ``rules`` a
    legacy row only (unmigrated; the path while the upgrade gate is closed).
    """
    values = {k: v for k, v in values.items() if k in _CN.c and k != 'id'}
    plan = None
    if rules is not None:
        values['uuid'] = values.get('uuid') or uuidutils.generate_uuid()
        candidate = inventory_rules.LegacyNode.from_row(
            dict(values, id=values.get('hypervisor_hostname')))
        plan = inventory_rules.plan(candidate, rules)
    res = ctx.session.execute(_CN.insert().values(created_at=models._now(), **values))
    # a one-row INSERT always has its key (SQLAlchemy types it optional)
    node_id = cast(sa.CursorResult, res).inserted_primary_key[0]  # type: ignore[index]
    if plan is not None and rules is not None:
        apply_plan(ctx, plan, rules)
    return get_by_id(ctx, node_id)


def _ensure_classes(ctx, names):
    for name in sorted(names):
        if rc_obj.is_custom(name):
            rc_obj.ensure(ctx, name)


def _same(current, wanted):
    have = {i.resource_class: i.record() for i in current}
    return have == {i.resource_class: i.record() for i in wanted}


def apply_plan(ctx: RequestContext, plan: inventory_rules.ProviderPlan,
               rules: inventory_rules.Rules, managed: Set[str] = frozenset(),
               expected_generation: int | None = None) -> str:
    """Write ``plan`` as provider, inventories and aggregates; return 'created',
    'updated' or 'unchanged'.

    Inventory of classes outside ``managed`` (and outside the plan) that the
    provider already has is kept.  ``expected_generation`` (an existing
    provider's generation as the caller read it) makes the write a
    compare-and-swap; otherwise the generation read here is used.  Raises the
    provider/inventory domain errors (DuplicateProvider, InventoryInUse,
    ConcurrentUpdate ...); run it in a savepoint to skip one row.  Must run in
    a writer transaction.
    """
    outcome = 'unchanged'
    try:
        provider = generation.provider_by_uuid(ctx, plan.uuid)
        if provider.name != plan.name:
            rp_obj.update(ctx, plan.uuid, plan.name)
            outcome = 'updated'
    except exception.ResourceProviderNotFound:
        rp_obj.create(ctx, plan.name, uuid=plan.uuid)
        outcome = 'created'
    gen, current = inv_obj.get_all(ctx, plan.uuid)
    if expected_generation is not None and expected_generation != gen:
        raise exception.ConcurrentUpdate(
            what='resource provider',
            reason='generation conflict (expected %d, current %d); re-read and retry'
                   % (expected_generation, gen))
    managed = set(managed) | inventory_rules.LEGACY_CLASSES
    kept = [i for i in current if i.resource_class not in managed
            and not inventory_rules.is_governed(i.resource_class)
            and i.resource_class not in plan.inventories]
    wanted = kept + [inv_obj.from_record(rc, rec)
                     for rc, rec in sorted(plan.inventories.items())]
    if not _same(current, wanted):
        _ensure_classes(ctx, plan.inventories)
        gen, _ = inv_obj.replace_all(ctx, plan.uuid, gen, wanted,
                                     allow_zero_capacity=False)
        outcome = 'updated' if outcome == 'unchanged' else outcome
    have_aggs, gen = aggregate.get_for_provider(ctx, plan.uuid)
    want_aggs = set(have_aggs) | set(plan.aggregates)
    shared = rules.shared_storage_aggregate
    if shared and shared not in plan.aggregates:
        want_aggs.discard(shared)
    if want_aggs != set(have_aggs):
        aggregate.set_for_provider(ctx, plan.uuid, sorted(want_aggs),
                                   expected_generation=gen)
        outcome = 'updated' if outcome == 'unchanged' else outcome
    return outcome


def _changes(node, changes):
    unknown = set(changes) - set(WRITABLE)
    if unknown:
        raise exception.Invalid(reason='not a writable compute node field: %s'
                                       % ', '.join(sorted(unknown)))
    new = dataclasses.replace(node, **changes)
    return new


@db_api.writer
def update_capacity(ctx: RequestContext, node: ComputeNode, rules: inventory_rules.Rules,
                    **changes: Any) -> ComputeNode:
    """Change capacity fields of ``node`` (as read by get_by_id); the updated node.

    Once migrated the provider's inventories change (compare-and-swap on
    ``node.provider_generation``) and the row mirrors them; before, the row
    changes iff it was not written since ``node`` was read.  ConcurrentUpdate
    means re-read and retry; BadComputeNode when the new values are impossible.
    """
    new = _changes(node, changes)
    if new.migrated:
        plan = inventory_rules.plan(new, rules)
        apply_plan(ctx, plan, rules, managed=inventory_rules.managed_classes(node, rules),
                   expected_generation=node.provider_generation)
        cond = _CN.c.id == node.id
    else:
        inventory_rules.plan(new, rules, uuid=node.uuid or inventory_rules.PLACEHOLDER_UUID)
        # the row is the version: any write since the read moved updated_at
        cond = sa.and_(_CN.c.id == node.id, _CN.c.deleted == 0,
                       _CN.c.updated_at.is_(None) if node.updated_at is None
                       else _CN.c.updated_at == node.updated_at)
    res = ctx.session.execute(_CN.update().where(cond).values(
        updated_at=models._now(), **changes))
    if cast(sa.CursorResult, res).rowcount != 1:
        raise exception.ConcurrentUpdate(
            what='compute node',
            reason='%s changed since it was read; re-read and retry' % node.id)
    if not new.migrated and _provider_exists(ctx, node.uuid):
        # migrated between the read and this write: the inventories win
        raise exception.ConcurrentUpdate(
            what='compute node',
            reason='%s was migrated since it was read; re-read and retry' % node.id)
    return get_by_id(ctx, node.id)


def _provider_exists(ctx, uuid):
    if uuid is None:
        return False
    return ctx.session.execute(
        sa.select(_RP.c.id).where(_RP.c.uuid == uuid)).first() is not None
