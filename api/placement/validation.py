"""Checks of request bodies, query strings and media types."""

import threading
from typing import Any

import fastjsonschema
import jsonschema
import orjson
from oslo_utils import uuidutils

from api.common import errors as common_errors
from api.common import jsonbody
from api.placement import fault

_FORMATS = jsonschema.FormatChecker()


@_FORMATS.checks('uuid')
def _is_uuid_like(value):
    # Placement's lenient parser: 32 hex digits, hyphens optional, any case
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


def _validator(schema):
    return jsonschema.Draft7Validator(schema, format_checker=_FORMATS)


_FAST: dict[bytes, Any] = {}
_FAST_LOCK = threading.Lock()


def _fast(schema):
    """A compiled validity check of ``schema`` (fastjsonschema), made once per schema.

    Schemas built per microversion are new dicts each time: the key is
    their canonical JSON, not their identity.
    """
    key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    check = _FAST.get(key)
    if check is None:
        with _FAST_LOCK:
            check = _FAST.get(key)
            if check is None:
                try:
                    check = fastjsonschema.compile(
                        schema, formats={'uuid': _is_uuid_like}, use_default=False)
                except Exception:
                    # a shape the compiler cannot write code for (it fails on
                    # an empty patternProperties): jsonschema alone checks it
                    check = _refuse
                _FAST[key] = check
    return check


def _refuse(data):
    raise fastjsonschema.JsonSchemaException('not compiled')


def _errors(schema, data, by_path=True):
    """jsonschema's errors for ``data`` (by path); none when the compiled check passes.

    jsonschema stays the reference (its messages are the API's): it runs
    only when the compiled check refuses, and decides then.
    """
    try:
        _fast(schema)(data)
        return []
    except fastjsonschema.JsonSchemaException:
        errors = _validator(schema).iter_errors(data)
        return sorted(errors, key=lambda e: e.path) if by_path else list(errors)


def _message(error):
    """jsonschema's message, where, and (as Placement says it) the failing schema part.

    "Failed validating 'minimum' in schema['properties']['total']" is the
    part of Placement's text that clients grep; the schema itself is left out.
    """
    path = common_errors.cut('/'.join(str(p) for p in error.absolute_path))
    where = (" at '%s'" % path) if path else ''
    schema_path = ''.join('[%r]' % part for part in list(error.relative_schema_path)[:-1])
    return "%s%s. Failed validating '%s' in schema%s." % (
        common_errors.cut_repr(error.message, error.instance), where, error.validator,
        schema_path)


def require_json_content(req):
    """415 unless the request body is declared as application/json."""
    if req.content_type != 'application/json':
        raise fault.UnsupportedMediaType(
            'The media type %s is not supported, use application/json'
            % (req.content_type or None))


def require_json_accept(req):
    """406 when the client explicitly refuses JSON."""
    if req.headers.get('accept') and not req.accept.acceptable_offers(
            ['application/json']):
        raise fault.NotAcceptable('Only application/json is provided')


def extract_json(req, schema):
    """The request body, parsed and validated against ``schema``."""
    try:
        data = jsonbody.loads(req.body)
    except ValueError as exc:
        raise fault.BadRequest('Malformed JSON: %s' % exc)
    return check_json(data, schema)


def check_json(data, schema):
    """``data`` when it is valid against ``schema``, else Placement's 400 for a bad body."""
    errors = _errors(schema, data)
    if errors:
        raise fault.BadRequest('JSON does not validate: %s' % _message(errors[0]))
    return data


def query_dict(req, first=()):
    """The query string as a dict; repeated keys become lists.

    A key in ``first`` keeps its first value only (Placement's rule for
    ``limit`` and ``group_policy``: a repeated one is not an error).
    """
    out = {}
    for key in req.GET.keys():
        values = req.GET.getall(key)
        if key in first:
            out[key] = values[0]
        else:
            out[key] = values if len(values) > 1 else values[0]
    return out


def validate_query(req, schema, first=()):
    """Validate the query string against ``schema``; return it as a dict.

    Every value of a ``first`` key must be valid; the first one is returned.
    """
    data = query_dict(req, first)
    checks = [data]
    for key in first:
        checks += [dict(data, **{key: value}) for value in req.GET.getall(key)[1:]]
    for candidate in checks:
        errors = _errors(schema, candidate, by_path=False)
        if errors:
            raise fault.BadRequest('Invalid query string parameters: %s'
                                   % _message(errors[0]))
    return data
