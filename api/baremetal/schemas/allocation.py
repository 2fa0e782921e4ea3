"""Body of POST /v1/allocations and what PATCH /v1/allocations/{allocation} may change."""

from api.baremetal import validation

_NULLABLE_STR = {'type': ['string', 'null']}
# bounds on what one request may ask for (Ironic's node traits limit is 50)
MAX_TRAITS = 50
MAX_CANDIDATE_NODES = 1000
MAX_EXTRA_KEYS = 256
CREATE_SCHEMA = {
    'type': 'object',
    'properties': {
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'traits': {'type': ['array', 'null'], 'items': {'type': 'string'},
                   'maxItems': MAX_TRAITS},
        'candidate_nodes': {'type': ['array', 'null'], 'items': {'type': 'string'},
                            'maxItems': MAX_CANDIDATE_NODES},
        'name': _NULLABLE_STR, 'uuid': _NULLABLE_STR,
        'extra': {'type': ['object', 'null'], 'maxProperties': MAX_EXTRA_KEYS},
        'owner': {'type': ['string', 'null'], 'maxLength': 255},
        'node': _NULLABLE_STR,
    },
    'additionalProperties': False,
}

# the traits of a new allocation, checked with Ironic's texts
TRAITS_SCHEMA = {'type': ['array', 'null'], 'items': validation.TRAIT_SCHEMA}

# JSON-patch paths (validation.apply_patch): the name, and extra whole or by key
# (openstacksdk's update_allocation(extra=...) sends the whole /extra)
PATCHABLE = {'name': True, 'extra': True}
