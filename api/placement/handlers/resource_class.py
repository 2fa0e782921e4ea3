"""/resource_classes and /resource_classes/{name}."""

from api.placement import fault, microversion, policy, response, router, validation
from api.placement.schemas import resource_class as schema
from common import exception
from common.policies.placement import endpoints as rules
from objects.placement import resource_class as rc_obj


def _represent(req, rc):
    return {'name': rc.name,
            'links': [{'rel': 'self',
                       'href': response.link(req, '/resource_classes/%s' % rc.name)}]}


@router.endpoint(microversion.CUSTOM_RESOURCE_CLASSES, json_reply=True)
def list_resource_classes(req):
    policy.authorize(req, rules.RESOURCE_CLASSES_LIST)
    classes = rc_obj.get_all(req.context)
    return response.send_json(
        req, {'resource_classes': [_represent(req, rc) for rc in classes]},
        last_modified=response.newest(*(rc.updated_at or rc.created_at
                                         for rc in classes)))


@router.endpoint(microversion.CUSTOM_RESOURCE_CLASSES, json_reply=True)
def get_resource_class(req):
    policy.authorize(req, rules.RESOURCE_CLASSES_SHOW)
    rc = rc_obj.get_by_name(req.context, req.urlvars['name'])
    return response.send_json(req, _represent(req, rc),
                              last_modified=rc.updated_at or rc.created_at)


@router.endpoint(microversion.CUSTOM_RESOURCE_CLASSES, json_body=True)
def create_resource_class(req):
    policy.authorize(req, rules.RESOURCE_CLASSES_CREATE)
    data = validation.extract_json(req, schema.POST_RESOURCE_CLASS)
    try:
        rc = rc_obj.create(req.context, data['name'])
    except exception.ResourceClassExists:
        raise fault.Conflict('Conflicting resource class already exists: %s'
                             % data['name'])
    return response.no_content(
        201, location=response.location(req, '/resource_classes/%s' % rc.name))


@router.endpoint(microversion.CUSTOM_RESOURCE_CLASSES)
def update_resource_class(req):
    name = req.urlvars['name']
    policy.authorize(req, rules.RESOURCE_CLASSES_UPDATE)
    if req.version.matches(microversion.RESOURCE_CLASS_PUT_CREATES):
        # create-or-confirm; no body, the content type is ignored
        # the name is checked as a body would be: Placement's 400 says
        # "Failed validating 'pattern'" (or 'maxLength')
        validation.check_json({'name': name}, schema.PUT_RESOURCE_CLASS)
        _, created = rc_obj.ensure(req.context, name)
        return response.no_content(
            201 if created else 204,
            location=response.location(req, '/resource_classes/%s' % name))
    validation.require_json_content(req)
    data = validation.extract_json(req, schema.PUT_RESOURCE_CLASS)
    try:
        rc = rc_obj.rename(req.context, name, data['name'])
    except exception.ResourceClassExists:
        raise fault.Conflict('Resource class already exists: %s' % data['name'])
    return response.send_json(req, _represent(req, rc), cache=False)


@router.endpoint(microversion.CUSTOM_RESOURCE_CLASSES)
def delete_resource_class(req):
    policy.authorize(req, rules.RESOURCE_CLASSES_DELETE)
    try:
        rc_obj.destroy(req.context, req.urlvars['name'])
    except exception.ResourceClassInUse as exc:
        raise fault.Conflict('Error in delete resource class: %s' % exc.message)
    except exception.ResourceClassCannotDeleteStandard as exc:
        raise fault.BadRequest('Error in delete resource class: %s' % exc.message)
    return response.no_content()
