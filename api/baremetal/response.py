"""Building /v1 answers: JSON bodies, the node and allocation representations,
links and the ``next`` link of a full page."""

import dataclasses
from typing import Any
import urllib.parse

from oslo_serialization import jsonutils
from oslo_utils import strutils
import webob

from api.baremetal import node_conductor, policy
from api.baremetal import node_fields as fields_rules
from api.baremetal import version as api_version
from api.baremetal.schemas import driver as driver_schema
from api.common import links as common_links
from api.common import response as common_response
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node as node_obj

_iso = common_response.iso

# node fields shown only from a version on (older clients never see them)
_NODE_FIELD_VERSIONS = {'name': '1.5', 'resource_class': '1.21', 'traits': '1.37',
                        'fault': '1.42', 'conductor_group': '1.46', 'conductor': '1.49',
                        'owner': '1.50', 'description': '1.51', 'allocation_uuid': '1.52',
                        'retired': '1.61', 'retired_reason': '1.61',
                        'protected': '1.48', 'protected_reason': '1.48',
                        'lessee': api_version.LESSEE,
                        'network_data': api_version.NETWORK_DATA,
                        'boot_mode': api_version.BOOT_MODE,
                        'secure_boot': api_version.BOOT_MODE,
                        'shard': api_version.SHARDS,
                        'parent_node': api_version.CHILD_NODES,
                        'service_step': api_version.SERVICE,
                        'disable_power_off': api_version.DISABLE_POWER_OFF,
                        'instance_name': api_version.INSTANCE_NAME,
                        'health': api_version.NODE_HEALTH,
                        **{driver_schema.interface_field(k): v
                           for k, v in driver_schema.INTERFACE_VERSIONS.items()}}
# (Ironic's own gates of fields berth shows; read by api.baremetal.gates)
_NODE_FIELD_VERSIONS.update({'driver_internal_info': '1.3', 'clean_step': '1.7',
                             'deploy_step': '1.44', 'inspection_started_at': '1.6',
                             'inspection_finished_at': '1.6'})
NODE_FIELD_VERSIONS = _NODE_FIELD_VERSIONS
_NODE_LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
                     'provision_state', 'maintenance')
_ALLOCATION_FIELDS = ('uuid', 'name', 'node_uuid', 'state', 'last_error',
                      'resource_class', 'traits', 'candidate_nodes', 'extra', 'owner',
                      'created_at', 'updated_at')


# a key holding any of these (any case) is a secret: its value is never shown
_SECRET_WORDS = ('password', 'secret', 'key', 'token')
MASK = '******'


def mask_secrets(info):
    """``info`` (a node's driver_info or instance_info) with its secrets as ``******``.

    oslo.utils' list (Ironic's masking) plus any key naming a password,
    secret, key or token; nested objects are masked the same way.
    """
    if not isinstance(info, dict):
        return info
    out = strutils.mask_dict_password(info, MASK)
    for key, value in out.items():
        if isinstance(key, str) and any(w in key.lower() for w in _SECRET_WORDS):
            out[key] = MASK
        elif isinstance(value, dict):
            out[key] = mask_secrets(value)
    return out


def send_json(body, status=200, headers=None):
    resp = webob.Response(status=status, content_type='application/json',
                          charset=None)
    resp.body = jsonutils.dump_as_bytes(body)
    for name, value in (headers or {}).items():
        resp.headers[name] = value
    return resp


def no_content(status=204, headers=None):
    resp = webob.Response(status=status)
    resp.headers.pop('content-type', None)
    for name, value in (headers or {}).items():
        resp.headers[name] = value
    return resp


def links(req, resource, ident):
    url = common_links.base_url(req)
    return [{'href': '%s/v1/%s/%s' % (url, resource, ident), 'rel': 'self'},
            {'href': '%s/%s/%s' % (url, resource, ident), 'rel': 'bookmark'}]


def pick(body, fields, always=('uuid',)):
    """Keep only ``fields`` (plus ``always`` and links) of a representation."""
    if fields is None:
        return body
    keep = set(fields) | set(always) | {'links'}
    return {k: v for k, v in body.items() if k in keep}


def collection(req, resource, items, limit):
    """``{resource: items}`` plus ``next`` when the page is full."""
    body = {resource: items}
    if items and limit and len(items) >= limit:
        params = [(k, v) for k, v in req.GET.items() if k not in ('marker', 'limit')]
        params += [('limit', str(limit)), ('marker', items[-1]['uuid'])]
        query = '&'.join('%s=%s' % (k, urllib.parse.quote(v, safe=','))
                         for k, v in params)
        path = req.path_info.rstrip('/')
        body['next'] = '%s%s?%s' % (common_links.base_url(req), path, query)
    return body


def node(req, node, fields=None, detail=True):
    """A node as the caller's version shows it (``fields`` only, or the list form)."""
    body = {
        'uuid': node.uuid, 'name': node.name, 'driver': node.driver,
        'resource_class': node.resource_class,
        'provision_state': node.provision_state,
        'target_provision_state': node.target_provision_state,
        'provision_updated_at': _iso(node.provision_updated_at),
        'power_state': node.power_state,
        'target_power_state': node.target_power_state,
        'maintenance': node.maintenance,
        'maintenance_reason': node.maintenance_reason, 'fault': node.fault,
        'instance_uuid': node.instance_uuid,
        'instance_info': mask_secrets(node.instance_info),
        'properties': node.properties, 'driver_info': mask_secrets(node.driver_info),
        'driver_internal_info': {}, 'extra': node.extra, 'owner': node.owner,
        'lessee': node.lessee,
        'description': node.description, 'last_error': node.last_error,
        'reservation': node.reservation, 'conductor': None,
        'conductor_group': node.conductor_group or '', 'console_enabled': False,
        'chassis_uuid': node.chassis_uuid,
        'clean_step': {}, 'deploy_step': {}, 'service_step': {},
        'protected': node.protected,
        'protected_reason': node.protected_reason, 'retired': node.retired,
        'retired_reason': node.retired_reason,
        'traits': node.traits, 'allocation_uuid': node.allocation_uuid,
        'network_data': node.network_data, 'boot_mode': node.boot_mode,
        'secure_boot': node.secure_boot, 'shard': node.shard,
        'parent_node': node.parent_node,
        'disable_power_off': node.disable_power_off,
        'instance_name': node.instance_name,
        'health': None,     # 1.109: Ironic's BMC-reported health; berth has no BMC
        'created_at': _iso(node.created_at), 'updated_at': _iso(node.updated_at),
        'links': links(req, 'nodes', node.uuid),
    }
    body.update(fields_rules.shown_interfaces(node))
    body.update(_inspection(node))
    for field, since in _NODE_FIELD_VERSIONS.items():
        if not req.version.matches(since):
            body.pop(field)
    if body['provision_state'] == node_obj.AVAILABLE and not req.version.matches('1.2'):
        body['provision_state'] = None      # Ironic's NOSTATE before 1.2
    if fields is None and not detail:
        fields = _NODE_LIST_FIELDS
    body = pick(body, fields)
    if 'conductor' in body:        # the live conductor responsible for it (1.49)
        body['conductor'] = node_conductor.of(req, node)
    if node.id is not None:
        _restrict(req, node, body)
    return body


def _inspection(node):
    """Ironic's inspection timestamps: berth inspects nothing, so null unless set."""
    return {'inspection_started_at': _iso(getattr(node, 'inspection_started_at', None)),
            'inspection_finished_at': _iso(getattr(node, 'inspection_finished_at', None))}


# what a caller below baremetal:node:get:filter_threshold sees instead of a
# field its baremetal:node:get:<field> rule does not let it see (Ironic's texts)
_REDACTED = {
    'last_error': ('** Value Redacted - Requires baremetal:node:get:last_error '
                   'permission. **'),
    'reservation': '** Redacted - requires baremetal:node:get:reservation permission. **',
    'driver_internal_info': {'content': '** Redacted - Requires baremetal:node:get:'
                                        'driver_internal_info permission. **'},
    'driver_info': {'content': '** Redacted - requires baremetal:node:get:'
                               'driver_info permission. **'},
}


def _restrict(req, node, body):
    """Redact the fields the caller may not see (a lessee sees less than the owner)."""
    env = req.environ
    if 'berth.node_filter_threshold' not in env:     # once per request, not per node
        env['berth.node_filter_threshold'] = policy.check(req, rules.NODE_FILTER_THRESHOLD)
    if env['berth.node_filter_threshold']:
        return
    target = policy.node_target(node)
    for field, redacted in _REDACTED.items():
        if field in body and not policy.check(req, 'baremetal:node:get:' + field, target):
            body[field] = redacted


def node_fields(req):
    """The node fields the caller's version may ask for (``fields``)."""
    fields = set(node(req, _SAMPLE_NODE))
    fields.discard('links')
    return fields


# every field None: only its field names are read
_NO_VALUES: dict[str, Any] = {f.name: None for f in dataclasses.fields(node_obj.Node)}
_SAMPLE_NODE = node_obj.Node(**_NO_VALUES)


def allocation(req, alloc, fields=None):
    """An allocation as the caller's version shows it (``fields`` only)."""
    body = {'uuid': alloc.uuid, 'name': alloc.name, 'node_uuid': alloc.node_uuid,
            'state': alloc.state, 'last_error': alloc.last_error,
            'resource_class': alloc.resource_class, 'traits': alloc.traits,
            'candidate_nodes': alloc.candidate_nodes, 'extra': alloc.extra,
            'owner': alloc.owner, 'created_at': _iso(alloc.created_at),
            'updated_at': _iso(alloc.updated_at),
            'links': links(req, 'allocations', alloc.uuid)}
    if not req.version.matches(api_version.ALLOCATION_OWNER):
        body.pop('owner')
    return pick(body, fields)


def allocation_fields(req):
    """The allocation fields the caller's version may ask for (``fields``)."""
    if req.version.matches(api_version.ALLOCATION_OWNER):
        return _ALLOCATION_FIELDS
    return tuple(f for f in _ALLOCATION_FIELDS if f != 'owner')
