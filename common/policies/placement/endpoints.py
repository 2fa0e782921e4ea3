"""Endpoint rules: one per method and path, named as in Placement."""

from oslo_policy import policy

from common.policies.placement import base

RESOURCE_PROVIDERS_LIST = 'placement:resource_providers:list'
RESOURCE_PROVIDERS_CREATE = 'placement:resource_providers:create'
RESOURCE_PROVIDERS_SHOW = 'placement:resource_providers:show'
RESOURCE_PROVIDERS_UPDATE = 'placement:resource_providers:update'
RESOURCE_PROVIDERS_DELETE = 'placement:resource_providers:delete'
RESOURCE_CLASSES_LIST = 'placement:resource_classes:list'
RESOURCE_CLASSES_CREATE = 'placement:resource_classes:create'
RESOURCE_CLASSES_SHOW = 'placement:resource_classes:show'
RESOURCE_CLASSES_UPDATE = 'placement:resource_classes:update'
RESOURCE_CLASSES_DELETE = 'placement:resource_classes:delete'
RESOURCE_PROVIDERS_INVENTORIES_LIST = 'placement:resource_providers:inventories:list'
RESOURCE_PROVIDERS_INVENTORIES_CREATE = 'placement:resource_providers:inventories:create'
RESOURCE_PROVIDERS_INVENTORIES_SHOW = 'placement:resource_providers:inventories:show'
RESOURCE_PROVIDERS_INVENTORIES_UPDATE = 'placement:resource_providers:inventories:update'
RESOURCE_PROVIDERS_INVENTORIES_DELETE = 'placement:resource_providers:inventories:delete'
RESOURCE_PROVIDERS_AGGREGATES_LIST = 'placement:resource_providers:aggregates:list'
RESOURCE_PROVIDERS_AGGREGATES_UPDATE = 'placement:resource_providers:aggregates:update'
RESOURCE_PROVIDERS_USAGES = 'placement:resource_providers:usages'
USAGES = 'placement:usages'
TRAITS_LIST = 'placement:traits:list'
TRAITS_SHOW = 'placement:traits:show'
TRAITS_UPDATE = 'placement:traits:update'
TRAITS_DELETE = 'placement:traits:delete'
RESOURCE_PROVIDERS_TRAITS_LIST = 'placement:resource_providers:traits:list'
RESOURCE_PROVIDERS_TRAITS_UPDATE = 'placement:resource_providers:traits:update'
RESOURCE_PROVIDERS_TRAITS_DELETE = 'placement:resource_providers:traits:delete'
ALLOCATIONS_MANAGE = 'placement:allocations:manage'
ALLOCATIONS_LIST = 'placement:allocations:list'
ALLOCATIONS_UPDATE = 'placement:allocations:update'
ALLOCATIONS_DELETE = 'placement:allocations:delete'
RESOURCE_PROVIDERS_ALLOCATIONS_LIST = 'placement:resource_providers:allocations:list'
ALLOCATION_CANDIDATES_LIST = 'placement:allocation_candidates:list'
RESHAPER_RESHAPE = 'placement:reshaper:reshape'


def _rule(name, check, operations):
    verb = name.rsplit(':', 1)[-1]
    return policy.DocumentedRuleDefault(
        name, check, '%s %s.' % (verb.capitalize(), operations[0]['path']),
        operations, scope_types=['project'])


rules = [
    _rule(RESOURCE_PROVIDERS_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers'}]),
    _rule(RESOURCE_PROVIDERS_CREATE, base.ADMIN_OR_SERVICE, [{'method': 'POST', 'path': '/resource_providers'}]),
    _rule(RESOURCE_PROVIDERS_SHOW, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}'}]),
    _rule(RESOURCE_PROVIDERS_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/resource_providers/{uuid}'}]),
    _rule(RESOURCE_PROVIDERS_DELETE, base.ADMIN_OR_SERVICE, [{'method': 'DELETE', 'path': '/resource_providers/{uuid}'}]),
    _rule(RESOURCE_CLASSES_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_classes'}]),
    _rule(RESOURCE_CLASSES_CREATE, base.ADMIN_OR_SERVICE, [{'method': 'POST', 'path': '/resource_classes'}]),
    _rule(RESOURCE_CLASSES_SHOW, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_classes/{name}'}]),
    _rule(RESOURCE_CLASSES_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/resource_classes/{name}'}]),
    _rule(RESOURCE_CLASSES_DELETE, base.ADMIN_OR_SERVICE, [{'method': 'DELETE', 'path': '/resource_classes/{name}'}]),
    _rule(RESOURCE_PROVIDERS_INVENTORIES_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}/inventories'}]),
    _rule(RESOURCE_PROVIDERS_INVENTORIES_CREATE, base.ADMIN_OR_SERVICE, [{'method': 'POST', 'path': '/resource_providers/{uuid}/inventories'}]),
    _rule(RESOURCE_PROVIDERS_INVENTORIES_SHOW, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}/inventories/{resource_class}'}]),
    _rule(RESOURCE_PROVIDERS_INVENTORIES_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/resource_providers/{uuid}/inventories'}, {'method': 'PUT', 'path': '/resource_providers/{uuid}/inventories/{resource_class}'}]),
    _rule(RESOURCE_PROVIDERS_INVENTORIES_DELETE, base.ADMIN_OR_SERVICE, [{'method': 'DELETE', 'path': '/resource_providers/{uuid}/inventories'}, {'method': 'DELETE', 'path': '/resource_providers/{uuid}/inventories/{resource_class}'}]),
    _rule(RESOURCE_PROVIDERS_AGGREGATES_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}/aggregates'}]),
    _rule(RESOURCE_PROVIDERS_AGGREGATES_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/resource_providers/{uuid}/aggregates'}]),
    _rule(RESOURCE_PROVIDERS_USAGES, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}/usages'}]),
    _rule(USAGES, base.ADMIN_OR_PROJECT_READER_OR_SERVICE, [{'method': 'GET', 'path': '/usages'}]),
    _rule(TRAITS_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/traits'}]),
    _rule(TRAITS_SHOW, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/traits/{name}'}]),
    _rule(TRAITS_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/traits/{name}'}]),
    _rule(TRAITS_DELETE, base.ADMIN_OR_SERVICE, [{'method': 'DELETE', 'path': '/traits/{name}'}]),
    _rule(RESOURCE_PROVIDERS_TRAITS_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}/traits'}]),
    _rule(RESOURCE_PROVIDERS_TRAITS_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/resource_providers/{uuid}/traits'}]),
    _rule(RESOURCE_PROVIDERS_TRAITS_DELETE, base.ADMIN_OR_SERVICE, [{'method': 'DELETE', 'path': '/resource_providers/{uuid}/traits'}]),
    _rule(ALLOCATIONS_MANAGE, base.ADMIN_OR_SERVICE, [{'method': 'POST', 'path': '/allocations'}]),
    _rule(ALLOCATIONS_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/allocations/{consumer_uuid}'}]),
    _rule(ALLOCATIONS_UPDATE, base.ADMIN_OR_SERVICE, [{'method': 'PUT', 'path': '/allocations/{consumer_uuid}'}]),
    _rule(ALLOCATIONS_DELETE, base.ADMIN_OR_SERVICE, [{'method': 'DELETE', 'path': '/allocations/{consumer_uuid}'}]),
    _rule(RESOURCE_PROVIDERS_ALLOCATIONS_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/resource_providers/{uuid}/allocations'}]),
    _rule(ALLOCATION_CANDIDATES_LIST, base.ADMIN_OR_SERVICE, [{'method': 'GET', 'path': '/allocation_candidates'}]),
    _rule(RESHAPER_RESHAPE, base.SERVICE, [{'method': 'POST', 'path': '/reshaper'}]),
]
