"""Checking /v1 input: JSON bodies against their schemas, names, traits and JSON patches."""

import re
from typing import Any

import jsonpatch
import jsonschema
import os_traits
from oslo_utils import uuidutils

from api.baremetal import fault
from api.common import errors as common_errors
from api.common import jsonbody

_cut = common_errors.cut
_LOGICAL_NAME = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')
_CUSTOM_TRAIT = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
_STANDARD_TRAITS = frozenset(os_traits.get_traits())


def is_logical_name(value):
    return isinstance(value, str) and bool(_LOGICAL_NAME.match(value))


def is_valid_trait(value):
    return (isinstance(value, str) and 0 < len(value) <= 255
            and (bool(_CUSTOM_TRAIT.match(value)) or value in _STANDARD_TRAITS))


# Ironic's schema of one trait (its api.controllers.v1.utils.TRAITS_SCHEMA)
TRAIT_SCHEMA = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                'anyOf': [{'pattern': _CUSTOM_TRAIT.pattern},
                          {'enum': sorted(_STANDARD_TRAITS)}]}


def check_schema(schema, value, name=None):
    """400 with Ironic's text when ``value`` fails ``schema`` (a module constant).

    "Schema error for <name>: <message>" (Ironic's argument validator; its
    request body validator leaves out "for <name>"), followed by the most
    relevant nested error as ". Possible root cause: <message>".
    """
    errors = list(_validator(schema).iter_errors(value))
    if not errors:      # the usual case: no ranking of no errors
        return
    error = jsonschema.exceptions.best_match(errors)
    detail = 'Schema error%s: %s' % (' for %s' % name if name else '',
                                     common_errors.cut_repr(error.message, error.instance))
    cause = error
    while cause.context:
        cause = jsonschema.exceptions.best_match(cause.context)
    if cause is not error:
        detail += '. Possible root cause: %s' % common_errors.cut_repr(
            cause.message, cause.instance)
    raise fault.BadRequest(detail)


def check_trait(value):
    if not is_valid_trait(value):
        raise fault.BadRequest('Invalid trait %s: a trait must be a standard trait '
                               'or match ^CUSTOM_[A-Z0-9_]+$' % _cut(value))


def check_name(value, what='name'):
    if value is not None and not is_logical_name(value):
        raise fault.BadRequest("Expected a logical name but received %s for %s; "
                               "only [A-Za-z0-9._~-] are allowed, up to 255 "
                               "characters." % (_cut(value), what))


def unknown_driver(driver, group=''):
    """The 400 of a node whose driver berth does not offer (Ironic's NoValidHost text)."""
    return fault.BadRequest(
        'No valid host was found. Reason: No conductor service registered which '
        'supports driver %s for conductor group "%s". Ensure the driver is valid '
        'and enabled.' % (_cut(driver), _cut(group or '')))


def check_uuid(value, what='uuid'):
    """400 with Ironic's text unless ``value`` (not None) is a UUID."""
    if value is not None and not (isinstance(value, str)
                                  and uuidutils.is_uuid_like(value)):
        raise fault.BadRequest('Expected UUID for %s: %s' % (what, _cut(value)))


def check_ident(value):
    if not (uuidutils.is_uuid_like(value) or is_logical_name(value)):
        raise fault.BadRequest('Expected a logical name or UUID but received %s.'
                               % _cut(value))


# a JSON patch longer than this is refused before any operation is applied
MAX_PATCH_OPERATIONS = 100

_VALIDATORS: dict[int, Any] = {}


def _validator(schema):
    """The validator of ``schema``, built once: schemas are module constants
    (the cache keeps each one alive, so an id is never reused)."""
    validator = _VALIDATORS.get(id(schema))
    if validator is None:
        validator = _VALIDATORS[id(schema)] = jsonschema.Draft7Validator(schema)
    return validator


_PLAIN: dict[int, dict[str, int | None] | None] = {}
_STRING_OR_NULL = {'string', 'null'}


def _plain_strings(schema):
    """``{property: maxLength or None}`` of the nullable-string properties of an
    object ``schema`` that refuses any other property and has no other
    keyword (``required``, ``minProperties``...; built once; else None).

    A body holding only such properties, each None or a string within its
    maxLength, is one the schema accepts (jsonschema counts a string's
    length in code points, as ``len`` does): :func:`json_body` then skips
    the validator, the common case of a small POST.  Anything else, valid or
    not, goes through the validator and gets its answer and its error text.
    """
    key = id(schema)
    if key not in _PLAIN:
        plain: dict[str, int | None] | None = None
        if (schema.get('type') == 'object' and schema.get('additionalProperties') is False
                and set(schema) <= {'type', 'properties', 'additionalProperties'}):
            plain = {}
            for name, prop in schema.get('properties', {}).items():
                kind = prop.get('type')
                if (set(prop) <= {'type', 'maxLength'} and isinstance(kind, list)
                        and set(kind) == _STRING_OR_NULL):
                    plain[name] = prop.get('maxLength')
        _PLAIN[key] = plain
    return _PLAIN[key]


def _plainly_valid(schema, data):
    """Whether ``data`` holds only :func:`_plain_strings` of ``schema``, each within bounds."""
    plain = _plain_strings(schema)
    if not plain or not isinstance(data, dict):
        return False
    for name, value in data.items():
        if name not in plain:
            return False
        if value is None:
            continue
        limit = plain[name]
        if not isinstance(value, str) or (limit is not None and len(value) > limit):
            return False
    return True


def json_body(req, schema=None):
    """The parsed JSON body, validated against ``schema`` when given (400 otherwise).

    ``schema`` is a module constant: its validator is built once.
    """
    try:
        data = jsonbody.loads(req.body or b'null')
    except ValueError as exc:
        raise fault.BadRequest('Malformed JSON: %s' % exc)
    if schema is not None and not _plainly_valid(schema, data):
        errors = sorted(_validator(schema).iter_errors(data),
                        key=lambda e: list(e.absolute_path))
        if errors:
            err = errors[0]
            where = common_errors.cut('/'.join(str(p) for p in err.absolute_path))
            raise fault.BadRequest('Invalid input for field/attribute %s. %s'
                                   % (where or 'body',
                                      common_errors.cut_repr(err.message, err.instance)))
    return data


def apply_patch(doc, patch, allowed):
    """Apply a JSON patch to ``doc`` (a dict); only paths under ``allowed`` may change.

    ``allowed`` maps a top-level field to True (itself and below) or 'sub'
    (only keys below it, like /extra/foo).
    """
    if not isinstance(patch, list) or not patch:
        raise fault.BadRequest('A JSON patch must be a non-empty list of operations')
    if len(patch) > MAX_PATCH_OPERATIONS:
        raise fault.BadRequest('A JSON patch may have at most %d operations'
                               % MAX_PATCH_OPERATIONS)
    for op in patch:
        if (not isinstance(op, dict) or not isinstance(op.get('path'), str)
                or 'op' not in op):
            raise fault.BadRequest('Invalid JSON patch operation: %s' % _cut(op))
        if op['op'] not in ('add', 'replace', 'remove'):
            raise fault.BadRequest("Operation %s is not supported; use add, "
                                   "replace or remove" % _cut(op['op']))
        if op['op'] != 'remove' and 'value' not in op:
            raise fault.BadRequest("'add' and 'replace' operations need a value")
        parts = op['path'].lstrip('/').split('/')
        rule = allowed.get(parts[0])
        if rule is None or (rule == 'sub' and len(parts) < 2) or (
                rule is True and len(parts) > 1 and parts[0] not in (
                    'instance_info', 'properties', 'extra', 'driver_info')):
            raise fault.BadRequest('Cannot update %s' % _cut(op['path']))
    # one operation at a time, so that the error names the one that failed
    # (Ironic's PatchError text)
    for op in patch:
        try:
            doc = jsonpatch.apply_patch(doc, [op])
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException,
                KeyError, IndexError, TypeError) as exc:
            raise fault.BadRequest("Couldn't apply patch '%s'. Reason: %s"
                                   % (_cut(op), _cut(exc)))
    return doc
