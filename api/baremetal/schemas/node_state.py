"""Bodies of PUT /v1/nodes/{node}/states/* and /maintenance."""

TARGET_SCHEMA = {'type': 'object', 'properties': {'target': {'type': 'string'}},
                 'required': ['target']}

# PUT states/boot_mode and states/secure_boot (1.76): the handler checks the value
BOOT_MODE_SCHEMA = {'type': 'object', 'properties': {'target': {'type': 'string'}},
                    'required': ['target']}
SECURE_BOOT_SCHEMA = {'type': 'object', 'properties': {
    'target': {'type': ['boolean', 'string', 'null']}}, 'required': ['target']}

MAINTENANCE_SCHEMA = {'type': ['object', 'null'], 'properties': {
    'reason': {'type': ['string', 'null']}}}
