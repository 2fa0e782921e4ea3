"""/resource_providers/{uuid}/inventories and .../inventories/{resource_class}."""

from api.placement import errors, fault, microversion, policy, response, router, validation
from api.placement.schemas import inventory as schema
from common import exception
from common.policies.placement import endpoints as rules
from objects.placement import inventory as inv_obj


def _path(uuid, rc=None):
    path = '/resource_providers/%s/inventories' % uuid
    return path + '/' + rc if rc else path


def _one_body(gen, inv):
    body = inv.record()
    body['resource_provider_generation'] = gen
    return body


def _all_body(gen, inventories):
    return {'resource_provider_generation': gen,
            'inventories': {i.resource_class: i.record() for i in inventories}}


def _modified(inventories):
    return response.newest(*(i.updated_at or i.created_at for i in inventories))


def _allow_zero(req):
    return req.version.matches(microversion.RESERVED_EQUALS_TOTAL)


def _unknown_class(exc):
    return fault.BadRequest('Unknown resource class in inventory: %s' % exc.message)


def _invalid(verb, uuid, exc):
    """Placement's words for an inventory whose capacity is impossible."""
    return fault.BadRequest('Unable to %s inventory for resource provider %s: %s'
                            % (verb, uuid, exc.message))


@router.endpoint(json_reply=True)
def get_inventories(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_LIST)
    gen, inventories = inv_obj.get_all(req.context, req.urlvars['uuid'])
    return response.send_json(req, _all_body(gen, inventories),
                              last_modified=_modified(inventories))


@router.endpoint(json_reply=True)
def get_inventory(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_SHOW)
    gen, inv = inv_obj.get_one(req.context, req.urlvars['uuid'],
                               req.urlvars['resource_class'])
    return response.send_json(req, _one_body(gen, inv),
                              last_modified=inv.updated_at or inv.created_at)


@router.endpoint(json_body=True)
def create_inventory(req):
    uuid = req.urlvars['uuid']
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_CREATE)
    inv_obj.provider_generation(req.context, uuid)  # 404 before 400
    data = validation.extract_json(req, schema.POST_INVENTORY)
    inv = inv_obj.from_record(data['resource_class'], data)
    try:
        gen, inv = inv_obj.add(req.context, uuid, inv, _allow_zero(req))
    except exception.ResourceClassNotFound as exc:
        raise _unknown_class(exc)
    except exception.InvalidInventory as exc:
        raise _invalid('create', uuid, exc)
    except exception.ConcurrentUpdate as exc:
        raise fault.Conflict('Update conflict: %s' % exc.message,
                             code=errors.CONCURRENT_UPDATE)
    resp = response.send_json(req, _one_body(gen, inv), status=201,
                              last_modified=inv.created_at)
    resp.headers['location'] = response.location(req, _path(uuid, inv.resource_class))
    return resp


@router.endpoint(json_body=True)
def replace_inventories(req):
    uuid = req.urlvars['uuid']
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_UPDATE)
    inv_obj.provider_generation(req.context, uuid)  # 404 before 400
    data = validation.extract_json(req, schema.PUT_INVENTORIES)
    wanted = [inv_obj.from_record(rc, rec) for rc, rec in data['inventories'].items()]
    try:
        gen, inventories = inv_obj.replace_all(
            req.context, uuid, data['resource_provider_generation'], wanted,
            _allow_zero(req))
    except exception.ResourceClassNotFound as exc:
        raise _unknown_class(exc)
    except exception.InvalidInventory as exc:
        raise _invalid('update', uuid, exc)
    except exception.InventoryInUse as exc:
        raise fault.inventory_in_use(exc)
    return response.send_json(req, _all_body(gen, inventories),
                              last_modified=_modified(inventories))


@router.endpoint(json_body=True)
def update_inventory(req):
    uuid, rc = req.urlvars['uuid'], req.urlvars['resource_class']
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_UPDATE)
    inv_obj.provider_generation(req.context, uuid)  # 404 before 400
    data = validation.extract_json(req, schema.PUT_INVENTORY)
    inv = inv_obj.from_record(rc, data)
    try:
        gen, inv = inv_obj.update_one(req.context, uuid,
                                      data['resource_provider_generation'], inv,
                                      _allow_zero(req))
    except exception.InventoryNotFound as exc:
        # the class exists, the provider just has none of it
        raise fault.BadRequest('No inventory record with resource class for '
                               'resource provider %s: %s' % (uuid, exc.message))
    except exception.InvalidInventory as exc:
        raise _invalid('update', uuid, exc)
    return response.send_json(req, _one_body(gen, inv),
                              last_modified=inv.updated_at or inv.created_at)


@router.endpoint()
def delete_inventories(req):
    if not req.version.matches(microversion.DELETE_ALL_INVENTORIES):
        raise router.method_not_allowed(req, 'GET, POST, PUT')
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_DELETE)
    inv_obj.delete_all(req.context, req.urlvars['uuid'])
    return response.no_content()


@router.endpoint()
def delete_inventory(req):
    policy.authorize(req, rules.RESOURCE_PROVIDERS_INVENTORIES_DELETE)
    try:
        inv_obj.delete_one(req.context, req.urlvars['uuid'],
                           req.urlvars['resource_class'])
    except exception.InventoryInUse as exc:
        # Placement answers this one case with concurrent_update, not inuse
        raise fault.Conflict('Unable to delete inventory of class %s: %s'
                             % (req.urlvars['resource_class'], exc.message),
                             code=errors.CONCURRENT_UPDATE)
    except exception.InventoryNotFound as exc:
        raise fault.NotFound('No inventory of class %s found for delete: %s'
                             % (req.urlvars['resource_class'], exc.message))
    return response.no_content()
