"""Bodies of POST /v1/nodes and what PATCH /v1/nodes/{node} may change."""

# the only driver names accepted (no driver is loaded)
DRIVERS = ('fake-hardware', 'manual-management', 'ipmi', 'redfish')

_OBJECT = {'type': ['object', 'null']}
_STRING = {'type': ['string', 'null'], 'maxLength': 255}

CREATE_SCHEMA = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']}, 'name': _STRING,
        'driver': {'type': 'string', 'maxLength': 255},
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'properties': _OBJECT, 'extra': _OBJECT, 'driver_info': _OBJECT,
        'instance_info': _OBJECT, 'owner': _STRING, 'lessee': _STRING,
        'description': {'type': ['string', 'null'], 'maxLength': 4096},
        'conductor_group': _STRING,
    },
    'required': ['driver'],
    'additionalProperties': False,
}

# JSON-patch paths (validation.apply_patch): True = the field and below
PATCHABLE = {'name': True, 'resource_class': True, 'instance_uuid': True,
             'instance_info': True, 'properties': True, 'extra': True,
             'owner': True, 'lessee': True, 'driver_info': True,
             'description': True, 'conductor_group': True}

# the query parameters of GET /v1/nodes (anything else is a 400, as Ironic)
LIST_PARAMS = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'detail',
               'resource_class', 'provision_state', 'maintenance', 'associated',
               'owner', 'lessee', 'project', 'driver', 'instance_uuid',
               'conductor_group', 'conductor')
