"""Bodies of PUT /v1/nodes/{node}/states/* and /maintenance."""

TARGET_SCHEMA = {'type': 'object', 'properties': {'target': {'type': 'string'}},
                 'required': ['target']}

MAINTENANCE_SCHEMA = {'type': ['object', 'null'], 'properties': {
    'reason': {'type': ['string', 'null']}}}
