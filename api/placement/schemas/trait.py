"""Query of GET /traits and the body of PUT /resource_providers/{uuid}/traits."""

from api.placement.schemas import common

LIST_TRAITS_QUERY = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'associated': {'type': 'string'},
    },
    'additionalProperties': False,
}

PUT_PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {
            'type': 'array',
            'maxItems': common.MAX_ITEMS,
            'items': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        },
        'resource_provider_generation': common.GENERATION,
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}
