"""Bodies of the inventory writes (POST/PUT .../inventories[/{rc}])."""

import copy

from api.placement.schemas import common

_POSITIVE = {'type': 'integer', 'minimum': 1, 'maximum': common.MAX_INT}

RECORD_FIELDS = {
    'total': _POSITIVE,
    'reserved': {'type': 'integer', 'minimum': 0, 'maximum': common.MAX_INT},
    'min_unit': _POSITIVE,
    'max_unit': _POSITIVE,
    'step_size': _POSITIVE,
    'allocation_ratio': {'type': 'number', 'maximum': common.MAX_FLOAT},
}

# POST .../inventories: one new class; a generation is accepted and ignored
POST_INVENTORY = {
    'type': 'object',
    'properties': dict(RECORD_FIELDS, resource_class=common.RC_NAME,
                       resource_provider_generation=common.GENERATION),
    'required': ['resource_class', 'total'],
    'additionalProperties': False,
}

# PUT .../inventories/{rc}: one existing class, under the provider generation
PUT_INVENTORY = {
    'type': 'object',
    'properties': dict(RECORD_FIELDS, resource_provider_generation=common.GENERATION),
    'required': ['total', 'resource_provider_generation'],
    'additionalProperties': False,
}

# a record inside PUT .../inventories; like Placement, a per-record
# generation is accepted and ignored (the top-level one is checked)
_RECORD = {
    'type': 'object',
    'properties': dict(copy.deepcopy(RECORD_FIELDS),
                       resource_provider_generation=common.GENERATION),
    'required': ['total'],
    'additionalProperties': False,
}

# PUT .../inventories: the whole set
PUT_INVENTORIES = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': common.GENERATION,
        'inventories': {
            'type': 'object',
            'patternProperties': {common.RC_NAME['pattern']: _RECORD},
            'additionalProperties': False,
        },
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}
