"""Bodies of PUT /allocations/{consumer_uuid} and POST /allocations, by microversion.

Each table lists ``(first microversion, schema)``; :func:`for_version` picks
the newest entry the request's microversion reaches.
"""

import copy

from api.placement.schemas import common

_STRING_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
CONSUMER_TYPE = {'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                 'minLength': 1, 'maxLength': 255}
CONSUMER_GENERATION = {'type': ['integer', 'null']}

RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {common.RC_NAME['pattern']: {
        'type': 'integer', 'minimum': 1, 'maximum': common.MAX_INT}},
    'additionalProperties': False,
}

# 1.34: the mappings of an allocation candidate, validated and ignored
MAPPINGS = {
    'type': 'object',
    'minProperties': 1,
    'additionalProperties': {'type': 'array', 'minItems': 1,
                             'maxItems': common.MAX_ITEMS, 'items': common.UUID},
}

# 1.0-1.11: a list of {resource_provider: {uuid}, resources}
_LIST = {
    'type': 'array',
    'minItems': 1,
    'maxItems': common.MAX_ITEMS,
    'items': {
        'type': 'object',
        'properties': {
            'resource_provider': {
                'type': 'object',
                'properties': {'uuid': common.UUID},
                'required': ['uuid'],
                'additionalProperties': False,
            },
            'resources': RESOURCES,
        },
        'required': ['resource_provider', 'resources'],
        'additionalProperties': False,
    },
}

# 1.12+: {provider uuid: {resources, generation (ignored)}}
ALLOCATION_DICT = {
    'type': 'object',
    'patternProperties': {common.UUID36: {
        'type': 'object',
        'properties': {'resources': RESOURCES, 'generation': common.GENERATION},
        'required': ['resources'],
        'additionalProperties': False,
    }},
    'additionalProperties': False,
}


def _obj(properties, required):
    return {'type': 'object', 'properties': properties, 'required': required,
            'additionalProperties': False}


def _evolve(base, add=None, require=(), min_allocations=None):
    out = copy.deepcopy(base)
    out['properties'].update(add or {})
    out['required'] = out['required'] + list(require)
    if min_allocations is not None:
        out['properties']['allocations']['minProperties'] = min_allocations
    return out


_PUT_1_0 = _obj({'allocations': _LIST}, ['allocations'])
_PUT_1_8 = _evolve(_PUT_1_0, {'project_id': _STRING_ID, 'user_id': _STRING_ID},
                   ['project_id', 'user_id'])
_PUT_1_12 = _obj({'allocations': dict(ALLOCATION_DICT, minProperties=1),
                  'project_id': _STRING_ID, 'user_id': _STRING_ID},
                 ['allocations', 'project_id', 'user_id'])
_PUT_1_28 = _evolve(_PUT_1_12, {'consumer_generation': CONSUMER_GENERATION},
                    ['consumer_generation'], min_allocations=0)
_PUT_1_34 = _evolve(_PUT_1_28, {'mappings': MAPPINGS})
_PUT_1_38 = _evolve(_PUT_1_34, {'consumer_type': CONSUMER_TYPE}, ['consumer_type'])

PUT_ALLOCATIONS = [('1.0', _PUT_1_0), ('1.8', _PUT_1_8), ('1.12', _PUT_1_12),
                   ('1.28', _PUT_1_28), ('1.34', _PUT_1_34), ('1.38', _PUT_1_38)]

# One consumer's entry of POST /allocations (and of the reshaper's allocations)
_CONSUMER_1_13 = _obj({'allocations': ALLOCATION_DICT, 'project_id': _STRING_ID,
                       'user_id': _STRING_ID},
                      ['allocations', 'project_id', 'user_id'])
_CONSUMER_1_28 = _evolve(_CONSUMER_1_13, {'consumer_generation': CONSUMER_GENERATION},
                         ['consumer_generation'])
_CONSUMER_1_34 = _evolve(_CONSUMER_1_28, {'mappings': MAPPINGS})
_CONSUMER_1_38 = _evolve(_CONSUMER_1_34, {'consumer_type': CONSUMER_TYPE},
                         ['consumer_type'])

CONSUMER_ENTRY = [('1.13', _CONSUMER_1_13), ('1.28', _CONSUMER_1_28),
                  ('1.34', _CONSUMER_1_34), ('1.38', _CONSUMER_1_38)]


def consumers(entry, min_properties=1):
    """An object of consumer entries keyed by consumer uuid."""
    return {'type': 'object', 'minProperties': min_properties,
            'patternProperties': {common.UUID36: entry},
            'additionalProperties': False}


POST_ALLOCATIONS = [(version, consumers(entry)) for version, entry in CONSUMER_ENTRY]


def for_version(table, version):
    """The schema of the newest table entry that ``version`` reaches."""
    chosen = None
    for first, schema in table:
        if version.matches(first):
            chosen = schema
    return chosen
