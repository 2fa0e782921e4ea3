"""Body of POST /v1/allocations and what PATCH /v1/allocations/{allocation} may change."""

_NULLABLE_STR = {'type': ['string', 'null']}
CREATE_SCHEMA = {
    'type': 'object',
    'properties': {
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'traits': {'type': ['array', 'null'], 'items': {'type': 'string'}},
        'candidate_nodes': {'type': ['array', 'null'], 'items': {'type': 'string'}},
        'name': _NULLABLE_STR, 'uuid': _NULLABLE_STR,
        'extra': {'type': ['object', 'null']},
        'owner': {'type': ['string', 'null'], 'maxLength': 255},
        'node': _NULLABLE_STR,
    },
    'additionalProperties': False,
}

# JSON-patch paths (validation.apply_patch): the name, and extra whole or by key
# (openstacksdk's update_allocation(extra=...) sends the whole /extra)
PATCHABLE = {'name': True, 'extra': True}
