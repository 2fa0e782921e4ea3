"""Body of PUT /v1/nodes/{node}/traits."""

SET_SCHEMA = {'type': 'object', 'properties': {
    'traits': {'type': 'array', 'items': {'type': 'string'}, 'maxItems': 50}},
    'required': ['traits'], 'additionalProperties': False}
