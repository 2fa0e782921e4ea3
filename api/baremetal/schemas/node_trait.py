"""Body of PUT /v1/nodes/{node}/traits (Ironic's schema: its texts name ``body``)."""

from api.baremetal import validation

# no maxItems: the per-node limit (objects.baremetal.node.MAX_TRAITS) counts
# distinct traits, with Ironic's text; the body size limit bounds the list
SET_SCHEMA = {'type': 'object', 'properties': {
    'traits': {'type': 'array', 'items': validation.TRAIT_SCHEMA}},
    'additionalProperties': False}
