"""Bodies of POST /v1/nodes and what PATCH /v1/nodes/{node} may change."""

from objects.baremetal import conductor as conductor_obj

# the hardware types accepted, the ones /v1/drivers lists (no driver is loaded:
# every node runs as Ironic's fake-hardware; schemas/driver.py has their interfaces).
# As in Ironic, a hardware type no conductor offers is refused (400).
DRIVERS = conductor_obj.DRIVERS
_INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect', 'management',
               'network', 'power', 'raid', 'rescue', 'storage', 'vendor', 'firmware')
INTERFACE_FIELDS = tuple('%s_interface' % k for k in _INTERFACES)

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
        'network_data': _OBJECT, 'shard': _STRING,
        'parent_node': {'type': ['string', 'null'], 'maxLength': 36},
        'description': {'type': ['string', 'null'], 'maxLength': 4096},
        'conductor_group': _STRING,
        'chassis_uuid': {'type': ['string', 'null']},
        'retired': {'type': ['string', 'boolean', 'null']},
        'retired_reason': {'type': ['string', 'null']},
        'disable_power_off': {'type': ['string', 'boolean', 'null']},
        'instance_name': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255},
        **{f: {'type': ['string', 'null']} for f in INTERFACE_FIELDS},
    },
    'required': ['driver'],
    'additionalProperties': False,
}

# the free-form JSON fields a caller writes, each capped at ``[node] max_json_bytes``
# (conductor/manager/write_checks.py NODE_OBJECTS is the same tuple)
JSON_FIELDS = ('instance_info', 'properties', 'extra', 'driver_info', 'network_data')

# JSON-patch paths (validation.apply_patch): True = the field and below
PATCHABLE = {'name': True, 'resource_class': True, 'instance_uuid': True,
             'instance_info': True, 'properties': True, 'extra': True,
             'owner': True, 'lessee': True, 'driver_info': True,
             'description': True, 'conductor_group': True,
             'chassis_uuid': True, 'protected': True, 'protected_reason': True,
             'retired': True, 'retired_reason': True, 'driver': True,
             'maintenance': True, 'network_data': True, 'shard': True,
             'parent_node': True, 'disable_power_off': True, 'instance_name': True,
             **{f: True for f in INTERFACE_FIELDS}}

# the query parameters of GET /v1/nodes (anything else is a 400, as Ironic)
LIST_PARAMS = ('fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'detail',
               'resource_class', 'provision_state', 'maintenance', 'associated',
               'owner', 'lessee', 'project', 'driver', 'instance_uuid',
               'conductor_group', 'chassis_uuid', 'retired', 'fault', 'conductor',
               'shard', 'sharded', 'include_children', 'parent_node', 'instance_name')
