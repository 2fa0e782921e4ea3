"""The routes table: path template -> {HTTP method: handler}."""

from api.placement.handlers import aggregate
from api.placement.handlers import allocation
from api.placement.handlers import allocation_candidate
from api.placement.handlers import claim
from api.placement.handlers import inventory
from api.placement.handlers import project_usage
from api.placement.handlers import provider_allocation
from api.placement.handlers import provider_trait
from api.placement.handlers import quota
from api.placement.handlers import resource_class
from api.placement.handlers import reshaper
from api.placement.handlers import resource_provider
from api.placement.handlers import root
from api.placement.handlers import status
from api.placement.handlers import trait
from api.placement.handlers import usage

ROUTES = [
    ('/', {'GET': root.home}),
    ('/allocation_candidates',
     {'GET': allocation_candidate.list_allocation_candidates}),
    ('/resource_classes', {'GET': resource_class.list_resource_classes,
                           'POST': resource_class.create_resource_class}),
    ('/resource_classes/{name}', {'GET': resource_class.get_resource_class,
                                  'PUT': resource_class.update_resource_class,
                                  'DELETE': resource_class.delete_resource_class}),
    ('/resource_providers', {'GET': resource_provider.list_resource_providers,
                             'POST': resource_provider.create_resource_provider}),
    ('/resource_providers/{uuid}',
     {'GET': resource_provider.get_resource_provider,
      'PUT': resource_provider.update_resource_provider,
      'DELETE': resource_provider.delete_resource_provider}),
    ('/resource_providers/{uuid}/aggregates',
     {'GET': aggregate.get_aggregates, 'PUT': aggregate.set_aggregates}),
    ('/resource_providers/{uuid}/inventories',
     {'GET': inventory.get_inventories, 'POST': inventory.create_inventory,
      'PUT': inventory.replace_inventories, 'DELETE': inventory.delete_inventories}),
    ('/resource_providers/{uuid}/inventories/{resource_class}',
     {'GET': inventory.get_inventory, 'PUT': inventory.update_inventory,
      'DELETE': inventory.delete_inventory}),
    ('/resource_providers/{uuid}/traits',
     {'GET': provider_trait.get_provider_traits,
      'PUT': provider_trait.set_provider_traits,
      'DELETE': provider_trait.delete_provider_traits}),
    ('/resource_providers/{uuid}/usages', {'GET': usage.get_provider_usages}),
    ('/resource_providers/{uuid}/allocations',
     {'GET': provider_allocation.list_provider_allocations}),
    ('/allocations', {'POST': allocation.post_allocations}),
    ('/allocations/{consumer_uuid}', {'GET': allocation.get_allocations,
                                      'PUT': allocation.put_allocations,
                                      'DELETE': allocation.delete_allocations}),
    ('/usages', {'GET': project_usage.get_usages}),
    ('/reshaper', {'POST': reshaper.reshape}),
    ('/traits', {'GET': trait.list_traits}),
    # berth extensions (every microversion)
    ('/claims', {'POST': claim.create_claims}),
    ('/status', {'GET': status.show_page}),
    ('/status.json', {'GET': status.show_json}),
    ('/quotas/{project_id}', {'GET': quota.get_quota, 'PUT': quota.put_quota,
                              'DELETE': quota.delete_quota}),
    ('/traits/{name}', {'GET': trait.get_trait, 'PUT': trait.put_trait,
                        'DELETE': trait.delete_trait}),
]
