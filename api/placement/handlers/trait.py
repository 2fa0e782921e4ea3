"""/traits and /traits/{name}."""

import re

from api.placement import fault, microversion, policy, response, router, validation
from api.placement.schemas import trait as schema
from common.policies.placement import endpoints as rules
from objects.placement import trait as trait_obj

_CUSTOM = re.compile(r'^CUSTOM_[A-Z0-9_]+$')


def _name_filter(value):
    """(name_in, name_prefix) from ``in:A,B`` / ``startswith:P``; other operators: none."""
    if ':' not in value:
        raise fault.BadRequest(
            "Badly formatted name parameter. Expected name query string parameter "
            "in form: ?name=[in|startswith]:[name1,name2|prefix]. Got: \"%s\"" % value)
    op, _, arg = value.partition(':')
    if op == 'in':
        return [n for n in arg.split(',') if n], None
    if op == 'startswith':
        return None, arg
    return None, None


def _associated_filter(value):
    lowered = value.lower()
    if lowered not in ('true', 'false'):
        raise fault.BadRequest(
            'The query parameter "associated" only accepts "true" or "false". '
            'Got: %s' % value)
    return lowered == 'true'


@router.endpoint(microversion.TRAITS, json_reply=True)
def list_traits(req):
    policy.authorize(req, rules.TRAITS_LIST)
    query = validation.validate_query(req, schema.LIST_TRAITS_QUERY)
    name_in = prefix = associated = None
    if 'name' in query:
        name_in, prefix = _name_filter(query['name'])
    if 'associated' in query:
        associated = _associated_filter(query['associated'])
    traits = trait_obj.get_all(req.context, name_in=name_in, name_prefix=prefix,
                               associated=associated)
    return response.send_json(
        req, {'traits': [t.name for t in traits]},
        last_modified=response.newest(*(t.updated_at or t.created_at for t in traits)))


@router.endpoint(microversion.TRAITS)
def get_trait(req):
    policy.authorize(req, rules.TRAITS_SHOW)
    trait = trait_obj.get_by_name(req.context, req.urlvars['name'])
    return response.set_cache_headers(req, response.no_content(),
                                      trait.updated_at or trait.created_at)


@router.endpoint(microversion.TRAITS)
def put_trait(req):
    name = req.urlvars['name']
    policy.authorize(req, rules.TRAITS_UPDATE)
    if not _CUSTOM.match(name) or len(name) > 255:
        raise fault.BadRequest(
            'The trait is invalid. A valid trait must be no longer than 255 '
            'characters, start with the prefix "CUSTOM_" and use following '
            'characters: "A"-"Z", "0"-"9" and "_". Got: %s' % name)
    trait, created = trait_obj.ensure(req.context, name)
    resp = response.no_content(201 if created else 204,
                               location=response.location(req, '/traits/%s' % name))
    return response.set_cache_headers(req, resp, trait.updated_at or trait.created_at)


@router.endpoint(microversion.TRAITS)
def delete_trait(req):
    policy.authorize(req, rules.TRAITS_DELETE)
    trait_obj.destroy(req.context, req.urlvars['name'])
    return response.no_content()
