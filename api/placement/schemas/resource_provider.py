"""Bodies and query strings of /resource_providers and /resource_providers/{uuid}."""

import copy
from typing import Any

from api.placement import microversion
from api.placement.schemas import common

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 200}
_PARENT = {'anyOf': [common.UUID, {'type': 'null'}]}

POST_PROVIDER: dict[str, Any] = {
    'type': 'object',
    'properties': {'name': _NAME, 'uuid': common.UUID},
    'required': ['name'],
    'additionalProperties': False,
}

POST_PROVIDER_1_14 = copy.deepcopy(POST_PROVIDER)
POST_PROVIDER_1_14['properties']['parent_provider_uuid'] = _PARENT

PUT_PROVIDER: dict[str, Any] = {
    'type': 'object',
    'properties': {'name': _NAME},
    'required': ['name'],
    'additionalProperties': False,
}

PUT_PROVIDER_1_14 = copy.deepcopy(PUT_PROVIDER)
PUT_PROVIDER_1_14['properties']['parent_provider_uuid'] = _PARENT

_STRING = {'type': 'string'}
_STRINGS = {'anyOf': [_STRING, {'type': 'array', 'items': _STRING}]}


def post_provider(version):
    return POST_PROVIDER_1_14 if version.matches(microversion.NESTED_PROVIDERS) else POST_PROVIDER


def put_provider(version):
    return PUT_PROVIDER_1_14 if version.matches(microversion.NESTED_PROVIDERS) else PUT_PROVIDER


def list_query(version):
    """The query keys GET /resource_providers accepts at ``version``.

    Values are checked by api.placement.query after the schema; ``required``
    may repeat at every version (only the last counts below 1.39), member_of
    from 1.24 (repeating it earlier is rejected by the parser).
    """
    props: dict[str, Any] = {'name': _STRING, 'uuid': common.UUID}
    if version.matches(microversion.PROVIDERS_MEMBER_OF):
        props['member_of'] = _STRINGS
    if version.matches(microversion.PROVIDERS_RESOURCES):
        props['resources'] = _STRING
    if version.matches(microversion.NESTED_PROVIDERS):
        props['in_tree'] = common.UUID
    if version.matches(microversion.PROVIDERS_REQUIRED):
        props['required'] = _STRINGS
    return {'type': 'object', 'properties': props, 'additionalProperties': False}
