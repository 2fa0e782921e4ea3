"""/allocations/{consumer_uuid} and POST /allocations.

Reads go straight to the objects; writes are ``claim_resources`` and
``delete_allocations`` RPC calls to the conductor owning the tree of the
first provider named (see objects.placement.allocation.routing_tree).
"""

import threading
import uuid as uuidlib

from oslo_utils import uuidutils

from api.placement import consumer_form, fault, policy, response, router, validation
from api.placement.policies import endpoints as rules
from api.placement.schemas import allocation as schema
from common import exception
from objects.placement import allocation as alloc_obj
from objects.placement import consumer as consumer_obj


def conductor(req):
    """The conductor RPC client, or 503 when this API runs without one."""
    if req.conductor is None:
        raise exception.ServiceUnavailable(reason='no conductor is configured')
    return req.conductor


def _from_list(items):
    """The 1.0-1.11 list shape as the 1.12 dict shape (repeated providers merged)."""
    merged = {}
    for item in items:
        resources = merged.setdefault(item['resource_provider']['uuid'],
                                      {'resources': {}})['resources']
        for rc, amount in item['resources'].items():
            resources[rc] = resources.get(rc, 0) + amount
    return merged


class _RootCache:
    """provider uuid -> root uuid, for routing only.

    A root changes only when a provider is re-parented; a stale entry merely
    sends a claim to another conductor, and the database still decides.
    """

    MAX = 100000

    def __init__(self):
        self._roots = {}
        self._lock = threading.Lock()

    def tree(self, ctx, providers, consumers):
        first = min(providers) if providers else None
        root = self._roots.get(first) if first else None
        if root is None:
            root = alloc_obj.routing_tree(ctx, providers, consumers)
            if first:
                with self._lock:
                    if len(self._roots) >= self.MAX:
                        self._roots.clear()
                    self._roots[first] = root
        return root


_ROOTS = _RootCache()


def routing_tree(req, providers, consumers=()):
    """The routing key of a write (objects.placement.allocation.routing_tree), cached."""
    return _ROOTS.tree(req.context, providers, consumers)


def claim(req, consumers):
    """Send ``consumers`` (conductor form) to the owner of their tree."""
    tree = routing_tree(req, {rp for c in consumers for rp in c['allocations']},
                        [c['uuid'] for c in consumers])
    conductor(req).claim_resources(req.context, tree, consumers)


@router.endpoint(json_reply=True)
def get_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_LIST)
    consumer_uuid = req.urlvars['consumer_uuid']
    allocations, consumer, last_modified = alloc_obj.get_for_consumer(
        req.context, consumer_uuid)
    body = {'allocations': allocations}
    if allocations and req.version.matches('1.12'):
        placement = req.conf.placement
        body['project_id'] = getattr(consumer, 'project_id',
                                     placement.incomplete_consumer_project_id)
        body['user_id'] = getattr(consumer, 'user_id',
                                  placement.incomplete_consumer_user_id)
        if req.version.matches('1.28'):
            body['consumer_generation'] = getattr(consumer, 'generation', None)
        if req.version.matches('1.38'):
            body['consumer_type'] = (getattr(consumer, 'consumer_type', None)
                                     or consumer_obj.UNKNOWN_TYPE)
    return response.send_json(req, body, last_modified=last_modified)


@router.endpoint(json_body=True)
def put_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_UPDATE)
    consumer_uuid = req.urlvars['consumer_uuid']
    if not uuidutils.is_uuid_like(consumer_uuid):
        raise fault.BadRequest('Malformed consumer_uuid: %s' % consumer_uuid)
    consumer_uuid = str(uuidlib.UUID(consumer_uuid))
    data = validation.extract_json(
        req, schema.for_version(schema.PUT_ALLOCATIONS, req.version))
    if not req.version.matches('1.12'):
        data['allocations'] = _from_list(data['allocations'])
    claim(req, [consumer_form.consumer_request(req, consumer_uuid, data)])
    return response.no_content()


@router.endpoint('1.13', json_body=True)
def post_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_MANAGE)
    data = validation.extract_json(
        req, schema.for_version(schema.POST_ALLOCATIONS, req.version))
    claim(req, [consumer_form.consumer_request(req, uuid, entry)
                for uuid, entry in sorted(data.items())])
    return response.no_content()


@router.endpoint()
def delete_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_DELETE)
    consumer_uuid = req.urlvars['consumer_uuid']
    tree = routing_tree(req, (), [consumer_uuid])
    conductor(req).delete_allocations(req.context, tree, consumer_uuid)
    return response.no_content()
