"""Shared helpers of the /v1 handlers: version gates, bodies, queries, links, patches."""

import re
import urllib.parse

import jsonpatch
import jsonschema
import os_traits
from oslo_serialization import jsonutils
from oslo_utils import strutils, uuidutils
import webob

from api.baremetal import fault
from api.common import jsonbody

_LOGICAL_NAME = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')
_CUSTOM_TRAIT = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_STANDARD_TRAITS = frozenset(os_traits.get_traits())
MAX_LIMIT = 1000


def mirrors(req):
    """Whether node writes also update the nodes' resource providers (placement backend)."""
    return req.conf.allocation.backend == 'placement'


def endpoint(min_version=None, too_old=404):
    """Declare the first version of a handler and what older versions get (404/405)."""
    def decorate(fn):
        fn.min_version = min_version
        fn.too_old = too_old
        return fn
    return decorate


def is_logical_name(value):
    return isinstance(value, str) and bool(_LOGICAL_NAME.match(value))


def is_valid_trait(value):
    return (isinstance(value, str) and 0 < len(value) <= 255
            and (bool(_CUSTOM_TRAIT.match(value)) or value in _STANDARD_TRAITS))


def check_trait(value):
    if not is_valid_trait(value):
        raise fault.BadRequest('Invalid trait %s: a trait must be a standard trait '
                               'or match ^CUSTOM_[A-Z0-9_]+$' % value)


def check_name(value, what='name'):
    if value is not None and not is_logical_name(value):
        raise fault.BadRequest("Expected a logical name but received %s for %s; "
                               "only [A-Za-z0-9._~-] are allowed, up to 255 "
                               "characters." % (value, what))


def check_ident(value):
    if not (uuidutils.is_uuid_like(value) or is_logical_name(value)):
        raise fault.BadRequest('Expected a logical name or UUID but received %s'
                               % value)


_VALIDATORS = {}


def _validator(schema):
    """The validator of ``schema``, built once: schemas are module constants
    (the cache keeps each one alive, so an id is never reused)."""
    validator = _VALIDATORS.get(id(schema))
    if validator is None:
        validator = _VALIDATORS[id(schema)] = jsonschema.Draft7Validator(schema)
    return validator


def json_body(req, schema=None):
    """The parsed JSON body, validated against ``schema`` when given (400 otherwise).

    ``schema`` is a module constant: its validator is built once.
    """
    try:
        data = jsonbody.loads(req.body or b'null')
    except ValueError as exc:
        raise fault.BadRequest('Malformed JSON: %s' % exc)
    if schema is not None:
        errors = sorted(_validator(schema).iter_errors(data),
                        key=lambda e: list(e.absolute_path))
        if errors:
            err = errors[0]
            where = '/'.join(str(p) for p in err.absolute_path)
            raise fault.BadRequest('Invalid input for field/attribute %s. %s'
                                   % (where or 'body', err.message))
    return data


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
    url = req.host_url + req.script_name
    return [{'href': '%s/v1/%s/%s' % (url, resource, ident), 'rel': 'self'},
            {'href': '%s/%s/%s' % (url, resource, ident), 'rel': 'bookmark'}]


def fields_param(req, allowed):
    """The ``fields`` query parameter as a list (None when absent); 400 on unknown."""
    value = req.GET.get('fields')
    if value is None:
        return None
    fields = [f.strip() for f in value.split(',') if f.strip()]
    unknown = [f for f in fields if f not in allowed]
    if unknown:
        raise fault.BadRequest('Field(s) "%s" are not valid' % ', '.join(unknown))
    return fields


def pick(body, fields, always=('uuid',)):
    """Keep only ``fields`` (plus ``always`` and links) of a representation."""
    if fields is None:
        return body
    keep = set(fields) | set(always) | {'links'}
    return {k: v for k, v in body.items() if k in keep}


def bool_param(req, name):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise fault.BadRequest('Invalid value %s for %s: expected a boolean'
                               % (value, name))


def pagination(req, sort_keys, forbidden_keys=()):
    """(limit, marker, sort_key, sort_dir) from the query, checked like Ironic."""
    limit = req.GET.get('limit')
    max_limit = MAX_LIMIT
    if limit is not None:
        try:
            limit = int(limit)
        except ValueError:
            raise fault.BadRequest('Invalid limit %s: must be an integer' % limit)
        if limit <= 0:
            raise fault.BadRequest('Limit must be positive')
        limit = min(limit, max_limit)
    else:
        limit = max_limit
    sort_dir = req.GET.get('sort_dir', 'asc')
    if sort_dir not in ('asc', 'desc'):
        raise fault.BadRequest("Invalid sort direction: %s. Acceptable values are "
                               "'asc' or 'desc'" % sort_dir)
    sort_key = req.GET.get('sort_key', 'id')
    if sort_key in forbidden_keys or sort_key not in sort_keys:
        raise fault.BadRequest('The sort_key value "%s" is an invalid field for '
                               'sorting' % sort_key)
    return limit, req.GET.get('marker'), sort_key, sort_dir


def collection(req, resource, items, limit):
    """``{resource: items}`` plus ``next`` when the page is full."""
    body = {resource: items}
    if items and limit and len(items) >= limit:
        params = [(k, v) for k, v in req.GET.items() if k not in ('marker', 'limit')]
        params += [('limit', str(limit)), ('marker', items[-1]['uuid'])]
        query = '&'.join('%s=%s' % (k, urllib.parse.quote(v, safe=','))
                         for k, v in params)
        path = req.path_info.rstrip('/')
        body['next'] = '%s%s%s?%s' % (req.host_url, req.script_name, path, query)
    return body


def apply_patch(doc, patch, allowed):
    """Apply a JSON patch to ``doc`` (a dict); only paths under ``allowed`` may change.

    ``allowed`` maps a top-level field to True (itself and below) or 'sub'
    (only keys below it, like /extra/foo).
    """
    if not isinstance(patch, list) or not patch:
        raise fault.BadRequest('A JSON patch must be a non-empty list of operations')
    for op in patch:
        if not isinstance(op, dict) or 'path' not in op or 'op' not in op:
            raise fault.BadRequest('Invalid JSON patch operation: %s' % (op,))
        if op['op'] not in ('add', 'replace', 'remove'):
            raise fault.BadRequest("Operation %s is not supported; use add, "
                                   "replace or remove" % op['op'])
        if op['op'] != 'remove' and 'value' not in op:
            raise fault.BadRequest("'add' and 'replace' operations need a value")
        parts = op['path'].lstrip('/').split('/')
        rule = allowed.get(parts[0])
        if rule is None or (rule == 'sub' and len(parts) < 2) or (
                rule is True and len(parts) > 1 and parts[0] not in (
                    'instance_info', 'properties', 'extra', 'driver_info')):
            raise fault.BadRequest('Cannot update %s' % op['path'])
    try:
        return jsonpatch.apply_patch(doc, patch)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException,
            KeyError, IndexError, TypeError) as exc:
        raise fault.BadRequest('Invalid patch: %s' % exc)
