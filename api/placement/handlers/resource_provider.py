"""/resource_providers and /resource_providers/{uuid}."""

import uuid as uuid_lib

import orjson

from api.placement import fault, microversion, policy, query, response, router, validation
from api.placement.schemas import resource_provider as schema
from common import exception
from common.policies.placement import endpoints as rules
from objects.candidates import provider_search
from objects.placement import resource_provider as rp_obj

# (rel, path suffix, first microversion) of the links of a provider
_LINKS = [('self', '', microversion.MIN_VERSION),
          ('inventories', '/inventories', microversion.MIN_VERSION),
          ('usages', '/usages', microversion.MIN_VERSION),
          ('aggregates', '/aggregates', microversion.AGGREGATES),
          ('traits', '/traits', microversion.TRAITS),
          ('allocations', '/allocations', microversion.PROVIDER_ALLOCATIONS_LINK)]


def _links(req):
    """(rel, suffix) of the links a provider has at the request's microversion."""
    return [(rel, suffix) for rel, suffix, since in _LINKS if req.version.matches(since)]


def represent(req, rp, links=None):
    """A provider as Placement shows it at the request's microversion.

    ``links`` is ``_links(req)``, computed once by a listing.
    """
    base = response.link(req, '/resource_providers/%s' % rp.uuid)
    body = {'uuid': rp.uuid, 'name': rp.name, 'generation': rp.generation,
            'links': [{'rel': rel, 'href': base + suffix}
                      for rel, suffix in (links if links is not None else _links(req))]}
    if req.version.matches(microversion.NESTED_PROVIDERS):
        body['parent_provider_uuid'] = rp.parent_provider_uuid
        body['root_provider_uuid'] = rp.root_provider_uuid
    return body


@router.endpoint(json_reply=True)
def list_resource_providers(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_LIST)
    params = validation.validate_query(req, schema.list_query(req.version))
    group = query.build_group(
        req.version, resources=params.get('resources'),
        required=params.get('required'), member_of=params.get('member_of'),
        in_tree=params.get('in_tree'))
    uuid = params.get('uuid')
    # an open search may lag (on the replica, doc/source/architecture.md); a lookup
    # of one provider or tree (name, uuid, in_tree) may follow the caller's
    # own write (nova's report client refreshes its tree so): the primary
    may_lag = all(params.get(k) is None for k in ('name', 'uuid', 'in_tree'))
    query.check_names(req.context, [group], may_lag=may_lag)
    providers = provider_search.get_all(
        req.context, name=params.get('name'),
        uuid=query.normalize_uuid(uuid) if uuid is not None else None,
        group=group, may_lag=may_lag)
    links = _links(req)
    # orjson: a listing can hold thousands of providers (strings and numbers only)
    return response.send_encoded(
        req, orjson.dumps({'resource_providers': [represent(req, rp, links)
                                                  for rp in providers]}),
        last_modified=response.newest(*(rp.last_modified for rp in providers)))


@router.endpoint(json_body=True)
def create_resource_provider(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_CREATE)
    data = validation.extract_json(req, schema.post_provider(req.version))
    uuid = data.get('uuid') or str(uuid_lib.uuid4())
    try:
        rp = rp_obj.create(req.context, data['name'], uuid=uuid,
                           parent_uuid=data.get('parent_provider_uuid'))
    except exception.ProviderTreeRefused as exc:
        raise fault.BadRequest('Unable to create resource provider "%s", %s: %s'
                               % (data['name'], uuid, exc.message))
    location = response.location(req, '/resource_providers/%s' % rp.uuid)
    if not req.version.matches(microversion.POST_PROVIDER_BODY):
        return response.no_content(201, location=location)
    resp = response.send_json(req, represent(req, rp), last_modified=rp.last_modified)
    resp.headers['location'] = location
    return resp


@router.endpoint(json_reply=True)
def get_resource_provider(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_SHOW)
    rp = rp_obj.get_by_uuid(req.context, req.urlvars['uuid'])
    return response.send_json(req, represent(req, rp), last_modified=rp.last_modified)


@router.endpoint(json_body=True)
def update_resource_provider(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_UPDATE)
    uuid = req.urlvars['uuid']
    rp_obj.get_by_uuid(req.context, uuid)  # 404 comes before body errors
    data = validation.extract_json(req, schema.put_provider(req.version))
    try:
        rp = rp_obj.update(req.context, uuid, data['name'],
                           parent_uuid=data.get('parent_provider_uuid', rp_obj.UNCHANGED),
                           allow_reparent=req.version.matches(microversion.REPARENT))
    except exception.ProviderTreeRefused as exc:
        raise fault.BadRequest('Unable to save resource provider %s: %s'
                               % (uuid, exc.message))
    return response.send_json(req, represent(req, rp), last_modified=rp.last_modified)


@router.endpoint()
def delete_resource_provider(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_DELETE)
    try:
        rp_obj.destroy(req.context, req.urlvars['uuid'])
    except exception.ResourceProviderNotFound:
        raise fault.NotFound('No resource provider with uuid %s found for delete'
                             % req.urlvars['uuid'])
    return response.no_content()
