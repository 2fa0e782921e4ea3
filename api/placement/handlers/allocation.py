"""/allocations/{consumer_uuid} and POST /allocations.

Reads go straight to the objects; writes are ``claim_resources`` and
``delete_allocations`` RPC calls, which the RPC client routes to the
conductor owning the tree of the first provider named
(conductor.rpcapi.routing).
"""

from typing import Any
import uuid as uuidlib

from oslo_utils import uuidutils

from api.common.conductor import require_conductor
from api.placement import consumers, fault, microversion, policy, response, router, validation
from api.placement.schemas import allocation as schema
from common.policies.placement import endpoints as rules
from objects.placement import allocation as placement_alloc
from objects.placement import consumer as consumer_obj


@router.endpoint(json_reply=True)
def get_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_LIST)
    consumer_uuid = req.urlvars['consumer_uuid']
    allocations, consumer, last_modified = placement_alloc.get_for_consumer(
        req.context, consumer_uuid)
    body: dict[str, Any] = {'allocations': allocations}
    if allocations and req.version.matches(microversion.ALLOCATIONS_DICT):
        placement = req.conf.placement
        body['project_id'] = getattr(consumer, 'project_id',
                                     placement.incomplete_consumer_project_id)
        body['user_id'] = getattr(consumer, 'user_id',
                                  placement.incomplete_consumer_user_id)
        if req.version.matches(microversion.CONSUMER_GENERATIONS):
            body['consumer_generation'] = getattr(consumer, 'generation', None)
        if req.version.matches(microversion.CONSUMER_TYPES):
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
    if not req.version.matches(microversion.ALLOCATIONS_DICT):
        data['allocations'] = consumers.from_list(data['allocations'])
    require_conductor(req).claim_resources(
        req.context, [consumers.claim_consumer(req, consumer_uuid, data)])
    return response.no_content()


@router.endpoint(microversion.POST_ALLOCATIONS, json_body=True)
def post_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_MANAGE)
    data = validation.extract_json(
        req, schema.for_version(schema.POST_ALLOCATIONS, req.version))
    require_conductor(req).claim_resources(
        req.context, [consumers.claim_consumer(req, uuid, entry)
                      for uuid, entry in sorted(data.items())])
    return response.no_content()


@router.endpoint()
def delete_allocations(req):
    policy.authorize(req, rules.ALLOCATIONS_DELETE)
    consumer_uuid = req.urlvars['consumer_uuid']
    require_conductor(req).delete_allocations(req.context, consumer_uuid)
    return response.no_content()
