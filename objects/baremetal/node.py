"""Bare-metal nodes: rows, lookups by uuid or name, listing and guarded writes.

Every write to a node is a conditional UPDATE that also requires the node
lock (``reservation``) to be free, so it can never interleave with a
conductor holding the node (an allocation reserving it, a delete of its
allocation); zero rows updated is re-read and answered as NodeLocked or
as a changed state.  With ``mirror=True`` (``[allocation] backend =
placement``) every writer also brings the node's resource provider up to
date in the same transaction (objects/baremetal/mirror.py).
"""

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from common import exception
from db import api as db_api
from db import models
from objects.baremetal import mirror as node_mirror
from objects.baremetal import node_history
from objects.baremetal.node_record import (  # noqa: F401  (the import surface)
    _ALLOC,
    _CHASSIS,
    _NODE,
    _TRAIT,
    ACTIVE,
    AVAILABLE,
    DEALLOCATING_VERBS,
    DELETE_ALLOWED,
    ENROLL,
    ERROR,
    MANAGEABLE,
    MAX_TRAITS,
    POWER_OFF,
    POWER_ON,
    PROTECTED_VERBS,
    PROVISION_VERBS,
    RETIRED_VERBS,
    SORT_KEYS,
    Node,
    _build,
    _select,
)


def ident_clause(ident):
    """The WHERE clause finding a node by uuid (when uuid-like) or by name."""
    if uuidutils.is_uuid_like(ident):
        return _NODE.c.uuid == ident
    return _NODE.c.name == ident


def get_in_txn(ctx, ident):
    """The node by uuid or name, inside the caller's transaction."""
    row = ctx.session.execute(_select().where(ident_clause(ident))).first()
    if row is None:
        raise exception.NodeNotFound(node=ident)
    return _build(ctx, [row])[0]


@db_api.reader
def get(ctx, ident):
    """The node whose uuid (or, if not uuid-like, name) is ``ident``."""
    return get_in_txn(ctx, ident)


def find_in_txn(ctx, *clauses):
    """Nodes (with traits and allocation uuid) matching ``clauses``, in the caller's txn."""
    return _build(ctx, ctx.session.execute(_select().where(*clauses)).all())


@db_api.reader
def get_by_id(ctx, node_id):
    row = ctx.session.execute(_select().where(_NODE.c.id == node_id)).first()
    if row is None:
        raise exception.NodeNotFound(node=node_id)
    return _build(ctx, [row])[0]


@db_api.reader
def uuids_for(ctx, idents, project=None):
    """Resolve uuids/names to uuids, keeping the order; NodeNotFound on the first unknown.

    With ``project``, a node neither owned nor leased by it is unknown.
    """
    out = []
    for ident in idents:
        q = sa.select(_NODE.c.uuid).where(ident_clause(ident))
        if project is not None:
            q = q.where(project_clause(project))
        uuid = ctx.session.execute(q).scalar()
        if uuid is None:
            raise exception.NodeNotFound(node=ident)
        out.append(uuid)
    return out


def _list_nodes(ctx, filters=None, limit=None, marker=None, sort_key='id',
                sort_dir='asc'):
    """Nodes matching ``filters`` (resource_class, provision_state,
    maintenance, associated, owner, lessee, project = owner or lessee,
    instance_uuid, instance_name, driver, conductor_group, retired, fault, chassis_uuid, sharded,
    shards: a list of shard names; include_children False: the nodes without a
    parent, or ``parent_node``'s children), one
    page after ``marker``; ChassisNotFound for an unknown chassis."""
    q = _select()
    filters = filters or {}
    for key in ('resource_class', 'provision_state', 'owner', 'lessee',
                'instance_uuid', 'instance_name', 'maintenance', 'driver', 'conductor_group',
                'retired', 'fault'):
        if filters.get(key) is not None:
            q = q.where(_NODE.c[key] == filters[key])
    if filters.get('chassis_uuid') is not None:
        q = q.where(_NODE.c.chassis_id == chassis_id_in_txn(ctx, filters['chassis_uuid']))
    if filters.get('project') is not None:
        q = q.where(project_clause(filters['project']))
    for key, col in (('associated', _NODE.c.instance_uuid), ('sharded', _NODE.c.shard)):
        if filters.get(key) is not None:
            q = q.where(col.isnot(None) if filters[key] else col.is_(None))
    if filters.get('shards') is not None:       # a list: none of them matches nothing
        q = q.where(_NODE.c.shard.in_(filters['shards']))
    if filters.get('include_children') is False:    # Ironic's listing: no children
        parent = filters.get('parent_node')
        q = q.where(_NODE.c.parent_node.is_(None) if parent is None
                    else _NODE.c.parent_node == parent)
    q = paginate(q, _NODE, limit, marker, sort_key, sort_dir,
                 lambda m: get_in_txn(ctx, m), exception.NodeNotFound)
    return _build(ctx, ctx.session.execute(q).all())


list_nodes = db_api.reader(_list_nodes)
list_nodes_may_lag = db_api.lagging_reader(recheck_on=(exception.Invalid,))(_list_nodes)  # replica


def chassis_id_in_txn(ctx, chassis_uuid):
    """The id of the chassis ``chassis_uuid`` (ChassisNotFound), in the caller's txn."""
    found = None
    if uuidutils.is_uuid_like(chassis_uuid):
        found = ctx.session.execute(sa.select(_CHASSIS.c.id).where(
            _CHASSIS.c.uuid == chassis_uuid)).scalar()
    if found is None:
        raise exception.ChassisNotFound(chassis=chassis_uuid)
    return found


def _chassis_values(ctx, values):
    """``values`` with a ``chassis_uuid`` turned into its ``chassis_id``."""
    if 'chassis_uuid' not in values:
        return values
    values = dict(values)
    chassis = values.pop('chassis_uuid')
    values['chassis_id'] = None if chassis is None else chassis_id_in_txn(ctx, chassis)
    return values


def project_clause(project):
    """Nodes ``project`` owns or leases."""
    return sa.or_(_NODE.c.owner == project, _NODE.c.lessee == project)


def paginate(q, table, limit, marker, sort_key, sort_dir, fetch, not_found):
    """Order by ``sort_key`` then id and keep the rows after ``marker`` (a uuid)."""
    col, id_col = table.c[sort_key], table.c.id
    desc = sort_dir == 'desc'
    if marker is not None:
        try:
            m = fetch(marker)
        except not_found:
            raise exception.Invalid(reason='Marker %s could not be found.' % marker)
        m_val = getattr(m, sort_key)
        after = (lambda c, v: c < v) if desc else (lambda c, v: c > v)
        if m_val is None:
            q = q.where(sa.or_(col.isnot(None) if not desc else sa.false(),
                               sa.and_(col.is_(None), after(id_col, m.id))))
        else:
            null_side = col.is_(None) if desc else sa.false()
            q = q.where(sa.or_(after(col, m_val), null_side,
                               sa.and_(col == m_val, after(id_col, m.id))))
    order: list[sa.ColumnElement] = [col.desc(), id_col.desc()] if desc else [
        col.asc(), id_col.asc()]
    if sort_key == 'id':
        order = order[:1]
    if col.nullable:
        # the condition above puts NULLs first ascending and last descending,
        # as SQLite and MariaDB order them; PostgreSQL's own order is the
        # other way round, so the place of NULLs is spelt out (portably: no
        # NULLS FIRST, which MariaDB lacks)
        has_value = sa.case((col.is_(None), 0), else_=1)
        order.insert(0, has_value.desc() if desc else has_value.asc())
    q = q.order_by(*order)
    if limit:
        q = q.limit(limit)
    return q


def _duplicate(exc, values):
    field = 'name' if 'name' in (exc.columns or ()) else 'UUID'
    value = values.get('name') if field == 'name' else values.get('uuid')
    return exception.NodeAlreadyExists(field=field, value=value)


@db_api.writer
def create(ctx, values, mirror=False):
    """Insert a node; NodeAlreadyExists on a clashing uuid or name."""
    values = _chassis_values(ctx, values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    values.setdefault('provision_state', ENROLL)
    values.setdefault('maintenance', False)
    values['created_at'] = models._now()
    try:
        with ctx.session.begin_nested():
            node_id = ctx.session.execute(_NODE.insert().values(**values)
                                          ).inserted_primary_key[0]
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    _mirror(ctx, node_id, mirror)
    return get_by_id(ctx, node_id)


def guarded_update(ctx, node, values, expect=()):
    """UPDATE the node iff unlocked and the ``expect`` columns still hold node's values.

    Must run in a writer; raises NodeLocked, or Conflict when it changed.
    """
    q = _NODE.update().where(_NODE.c.id == node.id, _NODE.c.reservation.is_(None))
    for column in expect:
        value = getattr(node, column)
        q = q.where(_NODE.c[column].is_(None) if value is None
                    else _NODE.c[column] == value)
    values = dict(values, updated_at=models._now())
    try:
        with ctx.session.begin_nested():
            res = ctx.session.execute(q.values(**values))
    except db_exc.DBDuplicateEntry as exc:
        if 'instance_uuid' in (exc.columns or ()):
            raise exception.InstanceAssociated(
                instance_uuid=values.get('instance_uuid'), node=node.uuid)
        raise _duplicate(exc, dict(values, uuid=node.uuid))
    if res.rowcount != 1:
        current = ctx.session.execute(sa.select(_NODE.c.reservation).where(
            _NODE.c.id == node.id)).first()
        if current is None:
            raise exception.NodeNotFound(node=node.uuid)
        if current.reservation is not None:
            raise exception.NodeLocked(node=node.uuid, host=current.reservation)
        raise exception.Conflict(reason='node %s changed concurrently; retry'
                                 % node.uuid)


def _must_deallocate(node, deallocate):
    """Refuse a write that would delete ``node``'s allocation outside a conductor.

    Deleting an allocation is a conductor's write (DESIGN.md, routing): the
    API sends those node writes over RPC and calls these writers with
    ``deallocate=False``; an allocation that appeared since the API looked
    is a concurrent change (409), never a deallocation in the API process.
    """
    if node.allocation_id is not None and not deallocate:
        raise exception.Conflict(reason='node %s changed concurrently; retry'
                                 % node.uuid)


def _delete_allocation_of(ctx, node, mirror):
    """Delete the allocation holding ``node`` and its claim (inside the caller's writer)."""
    if node.allocation_id is not None:
        ctx.session.execute(_ALLOC.delete().where(_ALLOC.c.id == node.allocation_id))
        if mirror:
            node_mirror.release(ctx, node.allocation_uuid)


def _mirror(ctx, node_id, mirror):
    """Bring the node's provider up to date when mirroring (inside the caller's writer)."""
    if mirror:
        node_mirror.sync(ctx, get_by_id(ctx, node_id))


@db_api.writer
def mirror(ctx, node_id):
    """Bring one node's resource provider up to date (placement backend).

    The node's row is locked before it is read.  The writes of the API lock
    it too (they update it first), so a node written while this runs is
    mirrored as written: without the lock, a write committed between the
    node's read and the provider's compare-and-swap would have bumped the
    generation the swap then reads, and the old node's unit would win.
    """
    ctx.session.execute(sa.select(_NODE.c.id).where(_NODE.c.id == node_id)
                        .with_for_update())
    _mirror(ctx, node_id, True)


@db_api.writer
def update(ctx, ident, values, mirror=False, deallocate=False):
    """Apply PATCHed ``values``; clearing instance_uuid deletes the node's allocation.

    Deleting the allocation needs ``deallocate=True`` (a conductor), else Conflict.
    """
    node = get_in_txn(ctx, ident)
    values = _chassis_values(ctx, values)
    if 'instance_uuid' in values and values['instance_uuid'] != node.instance_uuid:
        new = values['instance_uuid']
        if node.instance_uuid is not None and new is not None:
            raise exception.NodeAssociated(node=node.uuid, instance=node.instance_uuid)
        if new is None and node.allocation_id is not None:
            if node.provision_state == ACTIVE and not node.maintenance:
                raise exception.NodeInvalidState(
                    reason='Cannot remove the instance of node %s in state %s; '
                           'set maintenance first.' % (node.uuid, ACTIVE))
            _must_deallocate(node, deallocate)
            values['allocation_id'] = None
    guarded_update(ctx, node, values, expect=('instance_uuid', 'allocation_id'))
    if values.get('allocation_id', node.allocation_id) is None:
        _delete_allocation_of(ctx, node, mirror)
    _mirror(ctx, node.id, mirror)
    return get_in_txn(ctx, node.uuid)


@db_api.writer
def destroy(ctx, ident, mirror=False, deallocate=False):
    """Delete a node; a held node only in maintenance (its allocation goes too).

    A node with an allocation needs ``deallocate=True`` (a conductor), else Conflict.
    """
    node = get_in_txn(ctx, ident)
    if not node.maintenance and node.instance_uuid is not None:
        raise exception.NodeAssociated(node=node.uuid, instance=node.instance_uuid)
    if node.protected:      # Ironic's order: before the state
        raise exception.NodeProtected(node=node.uuid)
    if not node.maintenance and node.provision_state not in DELETE_ALLOWED:
        raise exception.NodeInvalidState(
            reason='Can not delete node "%s" while it is in provision state '
                   '"%s". Valid provision states to perform deletion are: '
                   '%s, or set the node into maintenance mode'
                   % (node.uuid, node.provision_state, ', '.join(DELETE_ALLOWED)))
    _must_deallocate(node, deallocate)
    guarded_update(ctx, node, {'allocation_id': None}, expect=('allocation_id',))
    if mirror:
        node_mirror.remove(ctx, node)
    if deallocate:
        # the allocation goes with its node (Ironic's allocation API)
        ctx.session.execute(_ALLOC.delete().where(_ALLOC.c.node_id == node.id))
    else:
        ctx.session.execute(_ALLOC.update().where(_ALLOC.c.node_id == node.id)
                            .values(node_id=None))
    ctx.session.execute(_TRAIT.delete().where(_TRAIT.c.node_id == node.id))
    node_history.delete_for_node(ctx, node.id)
    ctx.session.execute(_NODE.delete().where(_NODE.c.id == node.id))


@db_api.writer
def set_traits(ctx, ident, traits, mirror=False):
    """Replace the node's traits."""
    node = get_in_txn(ctx, ident)
    _trait_limit(node, len(set(traits)))
    guarded_update(ctx, node, {})
    ctx.session.execute(_TRAIT.delete().where(_TRAIT.c.node_id == node.id))
    now = models._now()
    if traits:
        ctx.session.execute(_TRAIT.insert(), [
            {'node_id': node.id, 'trait': t, 'created_at': now} for t in set(traits)])
    _mirror(ctx, node.id, mirror)
    return get_in_txn(ctx, node.uuid)


@db_api.writer
def add_trait(ctx, ident, trait, mirror=False):
    node = get_in_txn(ctx, ident)
    guarded_update(ctx, node, {})
    if trait not in node.traits:
        ctx.session.execute(_TRAIT.insert().values(node_id=node.id, trait=trait,
                                                   created_at=models._now()))
        # counted after the node's row is locked (guarded_update), as Ironic does
        _trait_limit(node, ctx.session.execute(
            sa.select(sa.func.count()).select_from(_TRAIT).where(
                _TRAIT.c.node_id == node.id)).scalar())
    _mirror(ctx, node.id, mirror)


def _trait_limit(node, count):
    if count > MAX_TRAITS:
        raise exception.Invalid(
            'Could not modify traits for node %s as it would exceed the maximum '
            'number of traits per node (%d vs. %d)' % (node.uuid, count, MAX_TRAITS))


@db_api.writer
def remove_trait(ctx, ident, trait, mirror=False):
    node = get_in_txn(ctx, ident)
    if trait not in node.traits:
        raise exception.NotFound('Node %s doesn\'t have a trait %s' % (node.uuid, trait))
    guarded_update(ctx, node, {})
    ctx.session.execute(_TRAIT.delete().where(_TRAIT.c.node_id == node.id,
                                              _TRAIT.c.trait == trait))
    _mirror(ctx, node.id, mirror)


@db_api.writer
def set_maintenance(ctx, ident, on, reason=None, mirror=False):
    node = get_in_txn(ctx, ident)
    guarded_update(ctx, node, {'maintenance': on,
                               'maintenance_reason': reason if on else None})
    node_history.record(ctx, node, 'Maintenance set: %s' % (reason or 'no reason')
                        if on else 'Maintenance cleared', 'maintenance')
    _mirror(ctx, node.id, mirror)


@db_api.writer
def set_provision_state(ctx, ident, verb, mirror=False, deallocate=False):
    """Run a provision verb; ``deleted`` also deletes the node's allocation.

    Deleting the allocation needs ``deallocate=True`` (a conductor), else Conflict.
    """
    node = get_in_txn(ctx, ident)
    sources, target = PROVISION_VERBS[verb]
    if node.protected and verb in PROTECTED_VERBS:
        raise exception.NodeProtected(node=node.uuid)
    if (node.retired and verb in RETIRED_VERBS
            and node.provision_state in PROVISION_VERBS[verb][0]):
        raise exception.NodeIsRetired(op='providing', node=node.uuid)
    if node.provision_state not in sources:
        raise exception.InvalidStateRequested(action=verb, node=node.uuid,
                                              state=node.provision_state)
    values = {'provision_state': target, 'target_provision_state': None,
              'provision_updated_at': models._now(), 'last_error': None}
    if verb == 'manage' and node.power_state is None:
        values['power_state'] = POWER_OFF   # the fake driver's power sync
    if target == ACTIVE:
        values['power_state'] = POWER_ON
    if verb in DEALLOCATING_VERBS:
        _must_deallocate(node, deallocate)
        values.update(instance_uuid=None, instance_info={}, instance_name=None,
                      allocation_id=None,
                      power_state=POWER_OFF)
    guarded_update(ctx, node, values, expect=('provision_state', 'allocation_id'))
    node_history.record(ctx, node, 'Provision state changed from %s to %s (%s)'
                        % (node.provision_state, target, verb), 'provisioning', target)
    if verb in DEALLOCATING_VERBS:
        _delete_allocation_of(ctx, node, mirror)
    _mirror(ctx, node.id, mirror)
    return get_in_txn(ctx, node.uuid)


@db_api.writer
def set_power_state(ctx, ident, target, mirror=False):
    node = get_in_txn(ctx, ident)
    state = POWER_ON if target in (POWER_ON, 'rebooting', 'soft rebooting') else POWER_OFF
    guarded_update(ctx, node, {'power_state': state, 'target_power_state': None})
    node_history.record(ctx, node, 'Power state set to %s (%s)' % (state, target), 'power')
    _mirror(ctx, node.id, mirror)
    return get_in_txn(ctx, node.uuid)
