"""The hand-written sentences of the api-ref: one per query or body parameter.

A key is a parameter's name, or ``<path>:<name>`` where one name means
something else under a path (the route's own path or a path above it, the
nearest wins); ``<path>?<name>`` is the same for a query parameter only.
tests/unit/test_api_ref.py fails while a generated parameter has no
sentence here.
"""

_INVENTORY = {
    'total': 'The amount of the resource the provider has.',
    'reserved': 'The amount of the resource that cannot be allocated (default 0).',
    'min_unit': 'The smallest amount one allocation may take (default 1).',
    'max_unit': 'The largest amount one allocation may take (default: the total).',
    'step_size': 'Allocations must be multiples of this amount (default 1).',
    'allocation_ratio': 'The overcommit ratio: capacity is '
                        '``(total - reserved) * allocation_ratio`` (default 1.0).',
}

_CANDIDATES = {
    'resources': 'The resources wanted, ``CLASS:AMOUNT`` comma-separated.',
    'resourcesN': 'The resources of a request group; the suffix names the group '
                  '(digits, or from 1.33 up to 64 letters, digits, ``_`` and ``-``).',
    'required': 'Traits every provider must have (``TRAIT``), must not have '
                '(``!TRAIT``, 1.22) or one of which it must have (``in:A,B``, 1.39), '
                'comma-separated; the key may repeat.',
    'requiredN': 'The required traits of a request group (as ``required``).',
    'member_of': 'Aggregates the provider must be in: ``in:A,B`` means any of them, '
                 '``!`` excludes (1.32); the key may repeat (1.24).',
    'member_ofN': 'The aggregates of a request group (as ``member_of``).',
    'in_tree': 'Only providers of the tree that this provider UUID belongs to.',
    'in_treeN': 'The tree of a request group (as ``in_tree``).',
    'limit': 'The most candidates to return.',
    'group_policy': '``isolate`` gives every suffixed group a provider of its own; '
                    '``none`` allows sharing. Required with two or more groups.',
    'root_required': 'Traits the root provider of each candidate must have '
                     '(``TRAIT``) or must not have (``!TRAIT``).',
    'same_subtree': 'Suffixes of groups whose providers must sit in one subtree, '
                    'comma-separated; the key may repeat.',
}

# POST /claims: the schema's ONE_OF (api/placement/schemas/claim.py)
_ONE_CONSUMER_FIELD = ('Exactly one of ``consumer_uuid`` and ``consumer_uuids`` is '
                       'required; neither or both is a 400 ``berth.claims.consumers``.')

_NODE = {
    'driver': 'The hardware type of the node (``fake-hardware``).',
    'resource_class': 'The resource class of the node, matched by allocations.',
    'properties': 'The physical properties of the node (cpus, memory, ...).',
    'driver_info': 'The information the driver needs to manage the node.',
    'instance_info': 'The information of the instance deployed on the node.',
    'lessee': 'The project leasing the node (1.65).',
    'conductor_group': 'The conductor group that manages the node.',
    'chassis_uuid': 'The chassis of the node.',
    'retired': 'Whether the node is retired (no new deployments).',
    'retired_reason': 'Why the node is retired.',
    'owner': 'The project owning the node.',
    'name': 'The name of the node (a logical name, not a UUID).',
    'uuid': 'The UUID of the node (generated when absent).',
    'description': 'A description of the node.',
    'extra': 'Free-form data of the node.',
    'traits': 'The traits of the node (the whole set).',
    'network_data': 'The network configuration (network_data.json: ``links``, '
                    '``networks``, ``services``) of the node (1.66).',
    'boot_mode': 'The boot mode of the node, ``bios`` or ``uefi`` (null: unknown; 1.75).',
    'secure_boot': 'Whether secure boot is on (null: unknown; 1.75).',
    'shard': 'The shard of the node (null: none; 1.82).',
    'parent_node': 'The parent of the node, by name or UUID; shown as its UUID (1.83).',
    'disable_power_off': 'Whether powering the node off is refused (a 409; 1.95).',
    'instance_name': 'The name of the instance on the node (set from '
                     '``instance_info.display_name`` when it has none; 1.104).',
}

# the filters of the node listings (/v1/nodes, /v1/chassis/{chassis}/nodes)
_NODE_FILTERS = {
    'instance_uuid': 'Only the nodes of this instance.',
    'provision_state': 'Only the nodes in this provision state.',
    'maintenance': 'Only the nodes in (``true``) or out of maintenance.',
    'associated': 'Only the nodes with (``true``) or without an instance.',
    'project': 'Only the nodes this project owns or leases.',
    'fault': 'Only the nodes with this fault.',
    'conductor': 'Only the nodes this conductor manages (1.49).',
    'driver': 'Only the nodes of this hardware type.',
    'resource_class': 'Only the nodes of this resource class.',
    'owner': 'Only the nodes this project owns.',
    'lessee': 'Only the nodes this project leases.',
    'conductor_group': 'Only the nodes of this conductor group.',
    'chassis_uuid': 'Only the nodes of this chassis.',
    'retired': 'Only the retired (``true``) or the other nodes.',
    'shard': 'Only the nodes of these shards (comma separated, matched in lower '
             'case; 1.82).',
    'sharded': 'Only the nodes with (``true``) or without a shard (1.82).',
    'include_children': 'With ``true``, the child nodes too (else left out; 1.83).',
    'parent_node': 'Only the children of the node of this UUID (1.83).',
    'instance_name': 'Only the nodes of this instance name (1.104).',
    'reset_interfaces': 'With a new ``driver``, reset every interface not given '
                        'to its default (1.45).',
}

DESCRIPTIONS = {
    **_INVENTORY, **_CANDIDATES,
    **{'/v1/nodes:' + k: v for k, v in _NODE.items()},
    **{'/v1?' + k: v for k, v in _NODE_FILTERS.items()},
    # Placement
    'name': 'Only the resource providers with this name.',
    'uuid': 'The UUID of the resource provider (generated when absent).',
    '/resource_providers:uuid': 'The UUID of the resource provider; in a query, '
                                'only that provider.',
    '/resource_providers:name': 'The name of the resource provider; in a query, '
                                'only the providers of that name.',
    '/resource_providers:resources': 'Only providers with capacity for these '
                                     'resources, ``CLASS:AMOUNT`` comma-separated.',
    '/resource_providers:required': 'Only providers with (``TRAIT``) or without '
                                    '(``!TRAIT``) these traits, comma-separated.',
    'parent_provider_uuid': 'The UUID of the parent provider (null: a root).',
    'resource_provider_generation': 'The provider generation the change is based on; '
                                    'a stale one answers 409.',
    'aggregates': 'The UUIDs of the aggregates the provider is in (the whole set).',
    'inventories': 'The inventories keyed by resource class (the whole set).',
    '/reshaper:inventories': 'The whole inventory set of every provider changed, '
                             'keyed by provider UUID.',
    'resource_class': 'The resource class of the new inventory.',
    'traits': 'The names of the traits (the whole set).',
    '/resource_classes:name': 'The name of the custom resource class '
                              '(``CUSTOM_`` and upper case letters, digits, ``_``).',
    '/traits:name': 'Only the traits whose names start with ``startswith:X`` or '
                    'are among ``in:A,B``.',
    'associated': 'Only the traits (not) associated with a provider '
                  '(``true``/``false``).',
    'allocations': 'The resources held, keyed by provider UUID (a list of '
                   '``resource_provider``/``resources`` before 1.12).',
    '/reshaper:allocations': 'The new allocations of every consumer affected, '
                             'keyed by consumer UUID.',
    'consumer_uuid': 'The UUID of the consumer.',
    'project_id': 'The project of the consumer.',
    'user_id': 'The user of the consumer.',
    '/usages:project_id': 'The project whose usages are counted.',
    '/usages:user_id': 'Only the usages of this user.',
    '/quotas:user_id': 'The user whose usages are shown beside the limits.',
    'consumer_generation': 'The consumer generation the change is based on '
                           '(null for a new consumer); a stale one answers 409.',
    'consumer_type': 'The type of the consumer (``INSTANCE``, ``MIGRATION``, ...).',
    '/usages:consumer_type': 'Only the usages of consumers of this type '
                             '(``all`` and ``unknown`` are accepted).',
    'mappings': 'Which providers satisfied which request group (from the '
                'candidate), validated and kept with the allocation.',
    # berth's extensions
    '/claims:consumer_uuid': 'The consumer to claim for. ' + _ONE_CONSUMER_FIELD,
    '/claims:consumer_uuids': 'Claim the same request once for each of these '
                              'consumers, all or none. ' + _ONE_CONSUMER_FIELD,
    '/claims:groups': 'Request groups keyed by suffix, each with its own '
                      '``resources``, ``required``, ``member_of`` and ``in_tree``.',
    '/claims:same_subtree': 'Lists of group suffixes whose providers must sit in '
                            'one subtree.',
    '/claims:required': 'Traits as the query string would repeat them '
                        '(``TRAIT``, ``!TRAIT``, ``in:A,B``).',
    '/claims:member_of': 'Aggregates as the query string would repeat them '
                         '(``in:A,B``, ``!A``).',
    '/claims:resources': 'The resources wanted, an object of class: amount.',
    'weigher': 'The name of the weigher that orders the candidates.',
    'count': 'How many consumers to claim for (with ``consumer_uuid``).',
    'distinct_roots': 'Put every consumer of a multiple claim on a different root '
                      'provider.',
    '/quotas:resources': 'The limits by resource class.',
    'consumers': 'The limits on the number of consumers, by consumer type.',
    'providers': 'How many providers the answer lists at most.',
    # bare metal
    '/v1/allocations?resource_class': 'Only the allocations of this resource class.',
    '/v1/allocations?owner': 'Only the allocations this project owns.',
    '/v1/allocations:name': 'The name of the allocation.',
    '/v1/allocations:uuid': 'The UUID of the allocation (generated when absent).',
    '/v1/allocations:resource_class': 'The resource class a node must have.',
    '/v1/allocations:traits': 'The traits a node must have.',
    '/v1/allocations:candidate_nodes': 'The nodes (UUIDs or names) to pick from.',
    '/v1/allocations:extra': 'Free-form data of the allocation.',
    '/v1/allocations:owner': 'The project owning the allocation (1.60); only '
                             'nodes it owns or leases match.',
    '/v1/allocations:node': 'Backfill: the node (UUID or name) already deployed '
                            '(1.58).',
    '/v1/allocations?node': 'Only the allocation of this node (UUID or name).',
    '/v1/allocations:state': 'Only the allocations in this state.',
    '/v1/chassis:uuid': 'The UUID of the chassis (generated when absent).',
    '/v1/chassis:description': 'A description of the chassis.',
    '/v1/chassis:extra': 'Free-form data of the chassis.',
    '/v1/drivers:type': 'Only the drivers of this type (``classic`` or ``dynamic``).',
    'target': 'The state to go to (a provision verb, or ``power on``/``power off``/'
              '``rebooting``).',
    '/v1/nodes/{node}/states/boot_mode:target': 'The boot mode to set: ``bios`` or '
                                                '``uefi`` (1.76).',
    '/v1/nodes/{node}/states/secure_boot:target': 'Whether secure boot is to be '
                                                  'enabled (1.76).',
    'deploy_steps': 'Deploy steps (``interface``, ``step``, ``args``, ``priority``) '
                    'with ``active`` or ``rebuild`` (1.69); validated, not run.',
    'disable_ramdisk': 'Ironic takes it with manual cleaning (not served: a 400, '
                       '1.70) and with ``service`` from 1.108 (a 406 below it).',
    'service_steps': 'Service steps (``interface``, ``step``, optional ``args``, '
                     '``order``) with ``service`` (1.87); validated, not run.',
    'runbook': 'A runbook (1.92); berth keeps none, so a 404.',
    'reason': 'Why the node is in maintenance.',
    'fields': 'The fields to return, comma-separated.',
    'marker': 'The UUID of the last item of the previous page.',
    'sort_key': 'The field to sort by.',
    'sort_dir': 'The sort direction, ``asc`` or ``desc``.',
    'detail': 'Whether to show every field.',
    'patch': 'A JSON patch (RFC 6902) of the fields to change.',
    '/v1:limit': 'The most items to return (at most 1000).',
    **{'%s_interface' % kind: 'The %s interface of the node.' % kind for kind in (
        'bios', 'boot', 'console', 'deploy', 'inspect', 'management', 'network',
        'power', 'raid', 'rescue', 'storage', 'vendor', 'firmware')},
}


def describe(path, name, where='body'):
    """The sentence of parameter ``name`` (``where``: query or body) under ``path``.

    A query parameter's own ``?`` sentence at any level wins over a ``:`` one.
    """
    for mark in ('?', ':') if where == 'query' else (':',):
        parts = path.rstrip('/').split('/')
        while parts:
            key = '%s%s%s' % ('/'.join(parts), mark, name)
            if key in DESCRIPTIONS:
                return DESCRIPTIONS[key]
            parts.pop()
    return DESCRIPTIONS.get(name)
