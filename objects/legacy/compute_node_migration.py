"""Online migration 1: legacy compute node rows become providers with inventories.

A row is pending while it is not deleted and no provider has its uuid (rows
without a uuid are always pending).  Migrating a row gives it a uuid when it
has none, then writes its plan (``objects.legacy.inventory_rules.plan``) through
``objects.legacy.compute_node.apply_plan``, all inside a savepoint of the batch's
transaction: a row either migrates completely or not at all.
"""

from __future__ import annotations

import logging
from typing import cast

from oslo_config import cfg
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from common.context import RequestContext
from db import api as db_api
from db import models
from objects.legacy import compute_node, inventory_rules

LOG = logging.getLogger('berth.' + __name__)

_CN = models.ComputeNode.__table__
_RP = models.ResourceProvider.__table__


def _pending():
    no_provider = ~sa.exists().where(_RP.c.uuid == _CN.c.uuid)
    return sa.and_(_CN.c.deleted == 0, sa.or_(_CN.c.uuid.is_(None), no_provider))


@db_api.reader
def count_pending(ctx: RequestContext, conf: cfg.ConfigOpts) -> int:
    """How many rows are not migrated yet (bad rows included)."""
    return ctx.session.execute(
        sa.select(sa.func.count()).select_from(_CN).where(_pending())).scalar_one()


@db_api.reader
def pending_ids(ctx: RequestContext, conf: cfg.ConfigOpts) -> list[int]:
    return list(ctx.session.execute(
        sa.select(_CN.c.id).where(_pending()).order_by(_CN.c.id)).scalars())


def row_error(exc: Exception) -> str:
    """The reason a row failed, for the report."""
    if isinstance(exc, inventory_rules.BadComputeNode):
        return exc.reason
    return str(exc)


def migrate_row(ctx: RequestContext, node: inventory_rules.LegacyNode,
                rules: inventory_rules.Rules) -> str:
    """Migrate one LegacyNode in a savepoint; ('created'|'updated'|'unchanged').

    Gives the row a uuid when it has none with a conditional UPDATE: when a
    concurrent run got there first and migrated it, the row counts as
    'unchanged'.  Raises BadComputeNode or a domain error; then nothing of
    the row is written.
    """
    new_uuid = node.uuid or uuidutils.generate_uuid()
    plan = inventory_rules.plan(node, rules, uuid=new_uuid)
    with ctx.session.begin_nested():
        cond = (_CN.c.uuid.is_(None) if node.uuid is None
                else _CN.c.uuid == node.uuid)
        # the row's version moves too (see compute_node.update_capacity)
        res = ctx.session.execute(_CN.update().where(_CN.c.id == node.id).where(cond)
                                  .values(uuid=new_uuid, updated_at=models._now()))
        if cast(sa.CursorResult, res).rowcount != 1:
            if _migrated_elsewhere(ctx, node.id):
                return 'unchanged'
            raise exception.ConcurrentUpdate(
                what='compute node', reason='row %s changed during the migration'
                                            % node.id)
        return compute_node.apply_plan(ctx, plan, rules)


def _migrated_elsewhere(ctx, node_id):
    return ctx.session.execute(
        sa.select(_CN.c.id).where(_CN.c.id == node_id).where(_CN.c.uuid.is_not(None))
        .where(sa.exists().where(_RP.c.uuid == _CN.c.uuid))).first() is not None


@db_api.writer
def migrate_batch(ctx: RequestContext, conf: cfg.ConfigOpts, limit: int,
                  marker: int | None = None) -> tuple[int, int, list[tuple[int, str]], int | None]:
    """Migrate up to ``limit`` pending rows with id > marker in one transaction.

    Returns (found, done, failed [(id, reason)], last id looked at).
    """
    rules = inventory_rules.Rules.from_conf(conf)
    query = sa.select(_CN).where(_pending()).order_by(_CN.c.id).limit(limit)
    if marker is not None:
        query = query.where(_CN.c.id > marker)
    # lock the rows: a concurrent update_capacity waits for this batch
    rows = ctx.session.execute(query.with_for_update()).all()
    done, failed = 0, []
    for row in rows:
        node = inventory_rules.LegacyNode.from_row(row)
        try:
            migrate_row(ctx, node, rules)
        except (inventory_rules.BadComputeNode, exception.BerthException) as exc:
            LOG.info('compute node %s not migrated: %s', node.id, row_error(exc))
            failed.append((node.id, row_error(exc)))
        else:
            done += 1
    return len(rows), done, failed, rows[-1].id if rows else marker


@db_api.reader
def unmigratable(ctx: RequestContext, conf: cfg.ConfigOpts) -> list[tuple[int, str]]:
    """[(id, reason)] of the pending rows whose values cannot be migrated (no writes)."""
    rules = inventory_rules.Rules.from_conf(conf)
    bad = []
    for row in ctx.session.execute(sa.select(_CN).where(_pending()).order_by(_CN.c.id)):
        node = inventory_rules.LegacyNode.from_row(row)
        try:
            inventory_rules.plan(node, rules,
                                 uuid=node.uuid or inventory_rules.PLACEHOLDER_UUID)
        except inventory_rules.BadComputeNode as exc:
            bad.append((node.id, exc.reason))
    return bad
