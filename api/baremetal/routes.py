"""The /v1 routes table: path template -> {method: handler}.

Literal segments come before ``{parameters}`` at the same depth (the first
match wins); a path with an empty method table answers 405 to everything.
"""

from api.baremetal.handlers import (
    allocation,
    chassis,
    conductor,
    driver,
    node,
    node_history,
    node_state,
    node_trait,
    root,
)

ROUTES = [
    ('/', {'GET': root.root}),
    ('/v1', {'GET': root.v1}),
    ('/v1/conductors', {'GET': conductor.list_conductors}),
    ('/v1/conductors/{hostname}', {'GET': conductor.get_conductor}),
    ('/v1/nodes', {'GET': node.list_nodes, 'POST': node.create_node}),
    ('/v1/nodes/detail', {'GET': node.list_nodes_detail}),
    ('/v1/nodes/{node}', {'GET': node.get_node, 'PATCH': node.update_node,
                          'DELETE': node.delete_node}),
    ('/v1/nodes/{node}/states', {'GET': node_state.get_states}),
    ('/v1/nodes/{node}/states/provision', {'PUT': node_state.set_provision_state}),
    ('/v1/nodes/{node}/states/power', {'PUT': node_state.set_power_state}),
    ('/v1/nodes/{node}/states/boot_mode', {'PUT': node_state.set_boot_mode}),
    ('/v1/nodes/{node}/states/secure_boot', {'PUT': node_state.set_secure_boot}),
    ('/v1/nodes/{node}/maintenance', {'PUT': node_state.set_maintenance,
                                      'DELETE': node_state.unset_maintenance}),
    ('/v1/nodes/{node}/traits', {'GET': node_trait.list_traits,
                                 'PUT': node_trait.set_traits,
                                 'DELETE': node_trait.remove_traits}),
    ('/v1/nodes/{node}/traits/{trait}', {'PUT': node_trait.add_trait,
                                         'DELETE': node_trait.remove_trait}),
    ('/v1/nodes/{node}/history', {'GET': node_history.list_history}),
    ('/v1/nodes/{node}/history/{event}', {'GET': node_history.get_history_event}),
    ('/v1/nodes/{node}/allocation', {'GET': allocation.get_node_allocation,
                                     'DELETE': allocation.delete_node_allocation}),
    ('/v1/nodes/{node}/allocation/{anything}', {}),
    ('/v1/allocations', {'GET': allocation.list_allocations,
                         'POST': allocation.create_allocation}),
    ('/v1/allocations/{allocation}', {'GET': allocation.get_allocation,
                                      'PATCH': allocation.update_allocation,
                                      'DELETE': allocation.delete_allocation}),
    ('/v1/chassis', {'GET': chassis.list_chassis, 'POST': chassis.create_chassis}),
    ('/v1/chassis/detail', {'GET': chassis.list_chassis_detail}),
    ('/v1/chassis/{chassis}', {'GET': chassis.get_chassis,
                               'PATCH': chassis.update_chassis,
                               'DELETE': chassis.delete_chassis}),
    ('/v1/chassis/{chassis}/nodes', {'GET': node.list_chassis_nodes}),
    ('/v1/chassis/{chassis}/nodes/detail', {'GET': node.list_chassis_nodes_detail}),
    ('/v1/drivers', {'GET': driver.list_drivers}),
    ('/v1/drivers/{driver}', {'GET': driver.get_driver}),
]
