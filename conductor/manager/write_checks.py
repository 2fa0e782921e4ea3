"""What an RPC write may carry: exactly what its REST twin accepts, checked before any read.

berth-api validates a request against its schemas before it calls a
conductor, but another service on the bus calls the conductor directly, so
the conductor checks the arguments again with the REST API's allow-lists
and bounds (the constants here equal api/baremetal/schemas' and
api/baremetal/validation's; tests/unit/conductor/test_write_checks.py
holds them equal).  An unknown key, a wrong type, a name or trait of the
wrong form, a list or object over its bound is ``Invalid`` (a 400 in both
APIs) and nothing is written; a value is never stored under a column name
the REST API would not write.  Batches are bounded too: a call carries at
most what berth-api's batching sends in one message.
"""

import json
import math
import re

import os_traits
from oslo_utils import uuidutils

from common import exception, field_checks

# POST /v1/allocations (api/baremetal/schemas/allocation.py)
MAX_TRAITS = 50
MAX_CANDIDATE_NODES = 1000
MAX_EXTRA_KEYS = 256
MAX_RESOURCE_CLASS = 80
MAX_STRING = 255
# what a backfill's values may hold (the body's fields but ``node``, which
# is the call's own argument)
BACKFILL_FIELDS = frozenset({'uuid', 'name', 'resource_class', 'traits',
                             'candidate_nodes', 'extra', 'owner'})
# PATCH /v1/allocations/{allocation}
ALLOCATION_PATCHABLE = frozenset({'name', 'extra'})
# PATCH /v1/nodes/{node} (api/baremetal/schemas/node.py PATCHABLE)
NODE_INTERFACES = tuple('%s_interface' % k for k in (
    'bios', 'boot', 'console', 'deploy', 'inspect', 'management', 'network', 'power',
    'raid', 'rescue', 'storage', 'vendor', 'firmware'))
NODE_STRINGS = ('owner', 'lessee', 'conductor_group', 'chassis_uuid', 'driver',
                'protected_reason', 'retired_reason', 'shard', 'parent_node',
                'instance_name') + NODE_INTERFACES
NODE_FLAGS = ('protected', 'retired', 'maintenance', 'disable_power_off')
NODE_PATCHABLE = frozenset({'name', 'resource_class', 'instance_uuid', 'instance_info',
                            'properties', 'extra', 'description', 'driver_info',
                            'network_data', *NODE_STRINGS, *NODE_FLAGS})
# leaving maintenance clears its reason and fault (api/baremetal/node_fields.py):
# an update may carry them, as None only
NODE_CLEARED = ('maintenance_reason', 'fault')
NODE_OBJECTS = ('instance_info', 'properties', 'extra', 'driver_info', 'network_data')
MAX_DESCRIPTION = 4096
# the most one message carries: berth-api's batchers send at most 32
MAX_BATCH = 32
# the most allocation ids of one create_allocations call
MAX_ALLOCATION_IDS = MAX_BATCH
# POST /claims: consumer_uuids (api/placement/schemas/claim.py)
MAX_CLAIM_CONSUMERS = 1000

_LOGICAL_NAME = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')
_CUSTOM_TRAIT = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_STANDARD_TRAITS = frozenset(os_traits.get_traits())


def _invalid(reason):
    return exception.Invalid(reason=reason)


def _cut(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


_only = field_checks.only


def _string(value, field, limit=MAX_STRING):
    if value is not None and not (isinstance(value, str) and len(value) <= limit):
        raise _invalid('%s must be a string of at most %d characters' % (field, limit))


def check_name(value, field='name'):
    if value is not None and not (isinstance(value, str) and _LOGICAL_NAME.match(value)):
        raise _invalid('Expected a logical name but received %s for %s'
                       % (_cut(value), field))


def _allocation_name(value):
    check_name(value)
    if value is not None and uuidutils.is_uuid_like(value):
        raise _invalid('An allocation name cannot look like a UUID: %s' % _cut(value))


def check_ident(value, field='node'):
    if not (isinstance(value, str) and (uuidutils.is_uuid_like(value)
                                        or _LOGICAL_NAME.match(value))):
        raise _invalid('Expected a logical name or UUID for %s but received %s'
                       % (field, _cut(value)))


def check_uuid(value, field='uuid'):
    if not (isinstance(value, str) and uuidutils.is_uuid_like(value)):
        raise _invalid('Expected a UUID for %s but received %s' % (field, _cut(value)))


def _trait(value):
    if not (isinstance(value, str) and 0 < len(value) <= MAX_STRING
            and (_CUSTOM_TRAIT.match(value) or value in _STANDARD_TRAITS)):
        raise _invalid('Invalid trait %s' % _cut(value))


def _list(value, field, limit, item_check):
    if value is None:
        return
    if not isinstance(value, list) or len(value) > limit:
        raise _invalid('%s must be a list of at most %d items' % (field, limit))
    for item in value:
        item_check(item)


def _extra(value, max_bytes, field='extra'):
    if value is None:
        return
    if not isinstance(value, dict) or len(value) > MAX_EXTRA_KEYS:
        raise _invalid('%s must be an object of at most %d keys' % (field, MAX_EXTRA_KEYS))
    if max_bytes and len(json.dumps(value, default=str)) > max_bytes:
        raise _invalid('%s is larger than %d bytes' % (field, max_bytes))


def backfill(values, node, max_bytes):
    """``backfill_allocation``'s ``values`` and ``node`` (POST /v1/allocations with node)."""
    _only(values, BACKFILL_FIELDS, 'a backfill')
    check_uuid(values.get('uuid'))
    check_ident(node)
    _allocation_name(values.get('name'))
    _string(values.get('resource_class'), 'resource_class', MAX_RESOURCE_CLASS)
    _string(values.get('owner'), 'owner')
    _list(values.get('traits'), 'traits', MAX_TRAITS, _trait)
    _list(values.get('candidate_nodes'), 'candidate_nodes', MAX_CANDIDATE_NODES,
          lambda item: check_uuid(item, 'a candidate node'))
    _extra(values.get('extra'), max_bytes)


def update_allocation(allocation, values, max_bytes):
    """``update_allocation`` (PATCH /v1/allocations/{allocation}: name, extra)."""
    check_ident(allocation, 'allocation')
    _only(values, ALLOCATION_PATCHABLE, 'an allocation update')
    _allocation_name(values.get('name'))
    _extra(values.get('extra'), max_bytes)


def update_node(node, values, max_bytes):
    """``update_node``: a node PATCH that removes the node's instance."""
    check_ident(node)
    _only(values, NODE_PATCHABLE | set(NODE_CLEARED), 'a node update')
    if 'instance_uuid' not in values or values['instance_uuid'] is not None:
        raise _invalid('update_node only takes a PATCH that removes instance_uuid')
    for field in NODE_CLEARED:
        if values.get(field) is not None:
            raise _invalid('a node update may only clear %s' % field)
    check_name(values.get('name'))
    _string(values.get('resource_class'), 'resource_class', MAX_RESOURCE_CLASS)
    for field in NODE_STRINGS:
        _string(values.get(field), field)
    # berth-api resolves a parent given by name to its UUID before it calls
    # (api/baremetal/node_parent.py); a name or any other text is not a parent
    if values.get('parent_node') is not None:
        check_uuid(values['parent_node'], 'parent_node')
    for field in NODE_FLAGS:
        if field in values and not isinstance(values[field], bool):
            raise _invalid('%s must be a boolean' % field)
    _string(values.get('description'), 'description', MAX_DESCRIPTION)
    for field in NODE_OBJECTS:
        value = values.get(field)
        if value is not None and not isinstance(value, dict):
            raise _invalid('%s must be an object' % field)
        if max_bytes and value and len(json.dumps(value, default=str)) > max_bytes:
            raise _invalid('%s is larger than %d bytes' % (field, max_bytes))


def node_verb(node, verb):
    check_ident(node)
    if verb not in ('deleted', 'undeploy'):
        raise _invalid('set_node_provision_state takes deleted or undeploy, not %s'
                       % _cut(verb))


def allocation_ids(ids):
    if not (isinstance(ids, list) and 0 < len(ids) <= MAX_ALLOCATION_IDS
            and all(isinstance(i, int) and not isinstance(i, bool) for i in ids)):
        raise _invalid('allocation_ids must be a list of 1 to %d integers'
                       % MAX_ALLOCATION_IDS)


def claims(batch):
    if not (isinstance(batch, list) and 0 < len(batch) <= MAX_BATCH):
        raise _invalid('claims must be a list of 1 to %d claims' % MAX_BATCH)


# a claim with more consumers than this has its size measured (a REST body
# holding it would be over the body limit); smaller ones are not measured
MEASURED_CONSUMERS = 64


def claim_consumers(consumers, max_bytes):
    """``claim_resources``/``reshape`` consumers: what one REST body could carry.

    POST /allocations bounds its consumers by the body limit only
    (``[api] max_request_body_size``); a call is held to the same.
    """
    if not isinstance(consumers, list):
        raise _invalid('consumers must be a list')
    if (len(consumers) > MEASURED_CONSUMERS and max_bytes
            and len(json.dumps(consumers, default=str)) > max_bytes):
        raise _invalid('%d consumers are more than one request body of %d bytes '
                       'may carry' % (len(consumers), max_bytes))


def claim(one, max_bytes):
    """One claim of ``claim_resources_many``: ``{'tree', 'consumers'}``, consumers as
    :func:`claim_consumers`."""
    if not isinstance(one, dict):
        raise _invalid('a claim must be an object')
    claim_consumers(one.get('consumers'), max_bytes)


def schedule_consumers(consumers):
    """``schedule_and_claim``'s consumers: as POST /claims' ``consumer_uuids``."""
    if not (isinstance(consumers, list) and 0 < len(consumers) <= MAX_CLAIM_CONSUMERS):
        raise _invalid('consumers must be a list of 1 to %d consumers'
                       % MAX_CLAIM_CONSUMERS)


def finite(capacity):
    """A capacity report holds no NaN or infinity (they have no JSON of their own)."""
    stack = [capacity]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise _invalid('capacity values must be finite numbers')
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
