"""/v1/allocations and /v1/nodes/{node}/allocation (API 1.52+).

A new allocation is stored ``allocating`` with the conductor that
``ConductorAPI.allocation_owner`` names (``[conductor] allocation_routing``)
as its conductor affinity and handed to that conductor; the answer (201)
shows it ``allocating``, as Ironic's does, unless the operator (``[api]
allocation_wait``) or the caller (the ``Berth-Allocation-Wait`` header,
bounded by ``[api] allocation_wait_max``) asks for a bounded wait for the
outcome, which then usually shows it ``active`` or ``error``.  A backfill
(``node``, 1.58) is a call to the ring owner of the allocation uuid, which
decides it at once.  Deletes are an RPC call to the allocation's conductor
(its affinity host while alive), so the node rules (409) reach the client.
The API writes an allocation row at two points only: a new allocation's row
is inserted here (``allocating``, before the hand-over), and deleted here
again when no conductor could take it (503, nothing left behind).  Every
other write -- the node reservation, the outcome, a backfill, a delete --
is the conductor's.
"""

import dataclasses
import json
import math

from oslo_utils import uuidutils

from api.baremetal import fault, json_suffix, policy, query, response, router, validation
from api.baremetal import version as api_version
from api.baremetal.schemas import allocation as schema
from api.common import errors as common_errors
from api.common import links as common_links
from api.common.conductor import require_conductor
from common import exception
from common.node_allocation_contract import AllocationUpdate, NewAllocation
from common.policies.baremetal import endpoints as rules
from objects.baremetal import allocation as node_alloc
from objects.baremetal import allocation_inserts
from objects.baremetal import node as node_obj

# the caller's opt-in to wait for the outcome of POST /v1/allocations (seconds)
WAIT_HEADER = 'Berth-Allocation-Wait'
_SORT_FORBIDDEN = ('extra', 'candidate_nodes', 'traits')
# Ironic's texts for a version without allocations (/v1/allocations only:
# /v1/nodes/{node}/allocation is a plain 404 before 1.52, as Ironic's routing)
_TOO_OLD = 'The API version does not allow allocations'
_TOO_OLD_PATCH = 'The API version does not allow updating allocations'
_cut = common_errors.cut
# the query parameters of GET /v1/allocations (anything else is a 400, as Ironic)
_LIST_PARAMS = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'node',
                'resource_class', 'state', 'owner')


def _visible(req, ident, rule=None):
    """The allocation ``ident`` if the caller may see it (404 as for none), then ``rule``."""
    alloc = json_suffix.lookup(req, ident, lambda i: node_alloc.get(req.context, i))
    return policy.visible_allocation(req, alloc, ident, rule)


def _visible_on_node(req, rule=None):
    """The allocation of a node the caller may see (404 as for no node), then ``rule``."""
    ident = req.urlvars['node']
    node = policy.visible_node(req, node_obj.get(req.context, ident), ident)
    alloc = node_alloc.get_by_node(req.context, ident)
    # another project's allocation on a node the caller leases: as if none
    return policy.visible_allocation(req, alloc, 'for node %s' % node.uuid, rule)


def _node_named(req, ident):
    """The node ``ident`` names, for a filter or backfill: 400 as for no node if hidden."""
    try:
        return policy.visible_node(req, node_obj.get(req.context, ident), ident)
    except exception.NodeNotFound as exc:
        raise fault.BadRequest(exc.message)


def _validate_create(req, data):
    if 'node' in data and not req.version.matches(api_version.BACKFILL):
        raise fault.BadRequest("Invalid input for field/attribute body. Additional "
                               "properties are not allowed ('node' was unexpected)")
    if 'owner' in data and not req.version.matches(api_version.ALLOCATION_OWNER):
        raise fault.NotAcceptable('Request not acceptable.')
    values = {k: v for k, v in data.items() if v is not None}
    if not values.get('resource_class') and not values.get('node'):
        raise fault.BadRequest('The resource_class field is mandatory when not '
                               'backfilling')
    validation.check_schema(schema.TRAITS_SCHEMA, values.get('traits'))
    _check_name(values.get('name'), 'create')
    if uuidutils.is_uuid_like(values.get('name')):
        raise fault.BadRequest('An allocation name cannot look like a UUID: %s'
                               % values['name'])
    if 'uuid' in values and not uuidutils.is_uuid_like(values['uuid']):
        raise fault.BadRequest('Expected a UUID but received %s.' % values['uuid'])
    for ident in values.get('candidate_nodes', ()):
        validation.check_ident(ident)
    if 'node' in values:
        validation.check_ident(values['node'])
    _check_extra_size(req, values.get('extra'))
    return values


def _check_extra_size(req, extra):
    """400 for an ``extra`` over ``[allocation] max_extra_bytes`` of JSON (the
    conductor's write checks refuse the same over RPC, with the same text)."""
    cap = req.conf.allocation.max_extra_bytes
    if cap and extra and len(json.dumps(extra, default=str)) > cap:
        raise fault.BadRequest('extra is larger than %d bytes' % cap)


def _check_name(name, verb):
    """400 with Ironic's text for a name that is not a logical name."""
    if name and not validation.is_logical_name(name):
        raise fault.BadRequest("Cannot %s allocation with invalid name '%s'"
                               % (verb, _cut(name)))


@router.endpoint(api_version.ALLOCATIONS, too_old=405, message=_TOO_OLD)
def create_allocation(req):
    policy.authorize(req, rules.ALLOCATION_CREATE)
    values = _validate_create(req, validation.json_body(req, schema.CREATE_SCHEMA))
    wait = _wait(req)
    ctx = req.context
    scope = policy.project_scope(req)
    if scope is not None:
        if values.get('owner', scope) != scope:
            policy.authorize(req, rules.ALLOCATION_CREATE_RESTRICTED)
        values.setdefault('owner', scope)
    if values.get('candidate_nodes'):
        try:
            # a caller limited to its project resolves only the nodes it
            # owns or leases: any other is "not found", like a missing one
            values['candidate_nodes'] = node_obj.uuids_for(
                ctx, values['candidate_nodes'], project=scope)
        except exception.NodeNotFound as exc:
            raise fault.BadRequest('Cannot use node %s as a candidate: %s'
                                   % (exc.kwargs.get('node'), exc.message))
    node_ident = values.pop('node', None)
    # the one typed value of the write, from here to the row (and the wire)
    new = NewAllocation.from_primitive(values)
    if node_ident is not None:
        alloc = _backfill(req, new, node_ident)
    else:
        alloc = _create_and_cast(req, new, wait)
    return response.send_json(response.allocation(req, alloc), status=201, headers={
        'location': '%s/v1/allocations/%s' % (common_links.base_url(req),
                                                alloc.uuid)})


def _backfill(req, new, node_ident):
    """Hand a backfill to the owner of its uuid; 400 when the node does not fit.

    The uuid is known before the call (given, the node's instance uuid, or
    a new one), so the owner is the allocation's conductor affinity.
    """
    conductor = require_conductor(req)
    node = _node_named(req, node_ident)     # a hidden node answers as a missing one
    if new.uuid is None:
        new = dataclasses.replace(new, uuid=node.instance_uuid or uuidutils.generate_uuid())
    req.context.resource_uuid = new.uuid
    try:
        answer = conductor.backfill_allocation(req.context, new, node.uuid)
    except exception.NodeNotFound as exc:   # deleted since we looked
        raise fault.BadRequest(exc.message)
    if answer.error is not None:
        raise fault.BadRequest(answer.error)
    return node_alloc.get(req.context, answer.uuid)


def _create_and_cast(req, new, wait):
    """Store the row for its conductor and hand it over; 503 leaves nothing behind.

    The owner is waited for ``wait`` seconds (:func:`_wait`; by default not
    at all: a cast, answered ``allocating``); after a wait the answer
    usually shows the outcome, and a conductor that does not answer in
    time leaves the row ``allocating`` (it, its re-drive or the orphan
    takeover finishes it), and the answer shows the row as stored by then.
    """
    conductor = require_conductor(req)
    if new.uuid is None:
        # a new random uuid: no node can have it as its instance yet
        new = dataclasses.replace(new, uuid=uuidutils.generate_uuid())
    else:
        _instance_free(req, new.uuid)
    req.context.resource_uuid = new.uuid      # on every log line from here
    host = conductor.allocation_owner(new.uuid)
    # grouped with the POSTs in flight beside it: one transaction for them all
    alloc = allocation_inserts.create(
        req.context, new, host, extra_cap=req.conf.allocation.max_extra_bytes_per_project)
    try:
        written = conductor.create_allocation(req.context, alloc.id, host,
                                              wait=wait)
    except exception.ServiceUnavailable as unavailable:
        if node_alloc.delete_unstarted(req.context, alloc.id):
            raise
        try:
            # the conductor's re-drive finished the row while the cast failed:
            # the allocation exists, so it is a 201, not "nothing stored"
            return node_alloc.get_by_id(req.context, alloc.id)
        except exception.AllocationNotFound:
            raise unavailable from None
    if written is None:
        # a cast (no wait) answers the row as created, like Ironic
        return _as_stored(req, alloc) if wait > 0 else alloc
    return dataclasses.replace(
        alloc, state=written.state, node_uuid=written.node_uuid,
        last_error=written.last_error, updated_at=written.updated_at)


def _wait(req):
    """Seconds to wait for the owner's outcome before answering.

    The caller's ``Berth-Allocation-Wait`` header when sent (cut to ``[api]
    allocation_wait_max``; 0 asks for no wait), else the operator's ``[api]
    allocation_wait`` (0 by default: Ironic's asynchronous answer).
    """
    value = req.headers.get(WAIT_HEADER)
    if value is None:
        return req.conf.api.allocation_wait
    try:
        wait = float(value)
    except ValueError:
        wait = -1.0
    if not math.isfinite(wait) or wait < 0:
        raise fault.BadRequest('Invalid value for %s header: %s; expected a number '
                               'of seconds, 0 or more' % (WAIT_HEADER, _cut(value)))
    return min(wait, req.conf.api.allocation_wait_max)


def _as_stored(req, alloc):
    """``alloc`` as the database shows it now (as created when deleted meanwhile).

    The conductor answers None when it has no outcome of its own to give:
    not done in time, or another of its paths (the resume at start, the
    re-drive) drove the row first.  The row may be finished all the same,
    and the answer should not show a state older than a GET would.
    """
    try:
        return node_alloc.get_by_id(req.context, alloc.id)
    except exception.AllocationNotFound:
        return alloc


def _instance_free(req, alloc_uuid):
    """409 when some node already has ``alloc_uuid`` as its instance (as Ironic).

    The allocation could never reserve a node (the instance uuid is unique),
    so it is refused at once rather than stored to end in ``error``.  Only
    a uuid the client chose is looked up (a new random one is nobody's);
    the unique constraint on the instance uuid decides races either way.
    """
    held = node_alloc.instance_holder(req.context, alloc_uuid)
    if held is not None:
        raise exception.InstanceAssociated(instance_uuid=alloc_uuid, node=held)


def _fields(req):
    """``?fields``: ``owner`` before 1.60 is a 406 (Ironic), an unknown field a 400."""
    fields = query.fields_param(req, response.allocation_fields(
        req) + ('owner',))
    if fields and 'owner' in fields and not req.version.matches(
            api_version.ALLOCATION_OWNER):
        raise fault.NotAcceptable('Request not acceptable.')
    return fields


@router.endpoint(api_version.ALLOCATIONS, message=_TOO_OLD)
def list_allocations(req):
    query.known_params(req, _LIST_PARAMS)
    if 'owner' in req.GET and not req.version.matches(api_version.ALLOCATION_OWNER):
        raise fault.NotAcceptable('Request not acceptable.')
    fields = _fields(req)
    limit, marker, sort_key, sort_dir = query.pagination(
        req, node_alloc.SORT_KEYS + _SORT_FORBIDDEN, _SORT_FORBIDDEN)
    state = req.GET.get('state')
    if state is not None and state not in node_alloc.STATES:
        raise fault.BadRequest('Invalid state %s; valid states: %s'
                               % (state, ', '.join(node_alloc.STATES)))
    owner = req.GET.get('owner')
    filters = {'state': state, 'resource_class': req.GET.get('resource_class'),
               'owner': policy.list_project(req, 'allocation', owner) or owner}
    if req.GET.get('node'):
        filters['node_id'] = _node_named(req, req.GET['node']).id
    policy.check_marker(req, node_alloc.get, lambda a: policy.check(
        req, rules.ALLOCATION_GET, policy.allocation_target(a)))
    allocs = node_alloc.list_allocations(req.context, filters, limit, marker,
                                         sort_key, sort_dir)
    items = [response.allocation(req, a, fields) for a in allocs]
    return response.send_json(response.collection(req, 'allocations', items, limit))


@router.endpoint(api_version.ALLOCATIONS, message=_TOO_OLD)
def get_allocation(req):
    fields = _fields(req)
    alloc = _visible(req, req.urlvars['allocation'])
    return response.send_json(response.allocation(req, alloc, fields))


@router.endpoint(api_version.ALLOCATION_PATCH, too_old=405, message=_TOO_OLD_PATCH)
def update_allocation(req):
    alloc = _visible(req, req.urlvars['allocation'], rules.ALLOCATION_UPDATE)
    patch = validation.json_body(req)
    doc = {'name': alloc.name, 'extra': alloc.extra}
    new = validation.apply_patch(doc, patch, schema.PATCHABLE)
    if not isinstance(new.get('extra') or {}, dict):
        raise fault.BadRequest('extra must be an object, not %s' % (new['extra'],))
    _check_extra_size(req, new.get('extra'))
    name = new.get('name')
    _check_name(name, 'update')
    if name is not None and uuidutils.is_uuid_like(name):
        raise fault.BadRequest('An allocation name cannot look like a UUID: %s' % name)
    require_conductor(req).update_allocation(
        req.context, (alloc.uuid, alloc.conductor_affinity),
        AllocationUpdate(name, new.get('extra') or {}))
    alloc = node_alloc.get(req.context, alloc.uuid)
    return response.send_json(response.allocation(req, alloc))


@router.endpoint(api_version.ALLOCATIONS, too_old=405, message=_TOO_OLD)
def delete_allocation(req):
    alloc = _visible(req, req.urlvars['allocation'], rules.ALLOCATION_DELETE)
    require_conductor(req).destroy_allocation(req.context, alloc.uuid,
                                            alloc.conductor_affinity)
    return response.no_content()


@router.endpoint(api_version.ALLOCATIONS)
def get_node_allocation(req):
    fields = _fields(req)
    try:
        alloc = _visible_on_node(req)
    except exception.NodeNotFound as exc:
        # Ironic reads the path's node as a list filter here: a node it cannot
        # find is a 400 with the 404's text (a hidden node reads the same)
        raise fault.BadRequest(exc.message)
    return response.send_json(response.allocation(req, alloc, fields))


@router.endpoint(api_version.ALLOCATIONS)
def delete_node_allocation(req):
    alloc = _visible_on_node(req, rules.ALLOCATION_DELETE)
    require_conductor(req).destroy_allocation(req.context, alloc.uuid,
                                            alloc.conductor_affinity)
    return response.no_content()
