"""The api-ref's titles (one per route, in words) and its response-field tables.

A route's response table lists the top-level fields of its newest answer
sample (api-ref/source/samples, written by ``python -m cli.api_ref.samples``),
each with the sentence :data:`FIELDS` (or, for a field a request also sends,
cli/api_ref/words.py) gives it; tests/unit/test_api_ref.py fails while a
route has no title or a field no sentence.
"""

import json
import os

from cli.api_ref import words as api_ref_words

SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       'api-ref', 'source', 'samples')

_RP = '/resource_providers/{uuid}'
_NODE = '/v1/nodes/{node}'
TITLES = {
    ('GET', '/'): 'List API versions',
    ('GET', '/allocation_candidates'): 'List allocation candidates',
    ('GET', '/resource_classes'): 'List resource classes',
    ('POST', '/resource_classes'): 'Create a resource class',
    ('GET', '/resource_classes/{name}'): 'Show a resource class',
    ('PUT', '/resource_classes/{name}'): 'Update or create a resource class',
    ('DELETE', '/resource_classes/{name}'): 'Delete a resource class',
    ('GET', '/resource_providers'): 'List resource providers',
    ('POST', '/resource_providers'): 'Create a resource provider',
    ('GET', _RP): 'Show a resource provider',
    ('PUT', _RP): 'Update a resource provider',
    ('DELETE', _RP): 'Delete a resource provider',
    ('GET', _RP + '/aggregates'): 'List the aggregates of a resource provider',
    ('PUT', _RP + '/aggregates'): 'Set the aggregates of a resource provider',
    ('GET', _RP + '/inventories'): 'List the inventories of a resource provider',
    ('POST', _RP + '/inventories'): 'Create an inventory of a resource provider',
    ('PUT', _RP + '/inventories'): 'Replace the inventories of a resource provider',
    ('DELETE', _RP + '/inventories'): 'Delete the inventories of a resource provider',
    ('GET', _RP + '/inventories/{resource_class}'): 'Show one inventory',
    ('PUT', _RP + '/inventories/{resource_class}'): 'Update one inventory',
    ('DELETE', _RP + '/inventories/{resource_class}'): 'Delete one inventory',
    ('GET', _RP + '/traits'): 'List the traits of a resource provider',
    ('PUT', _RP + '/traits'): 'Set the traits of a resource provider',
    ('DELETE', _RP + '/traits'): 'Delete the traits of a resource provider',
    ('GET', _RP + '/usages'): 'Show the usages of a resource provider',
    ('GET', _RP + '/allocations'): 'List the allocations on a resource provider',
    ('POST', '/allocations'): 'Write the allocations of several consumers',
    ('GET', '/allocations/{consumer_uuid}'): 'Show the allocations of a consumer',
    ('PUT', '/allocations/{consumer_uuid}'): 'Write the allocations of a consumer',
    ('DELETE', '/allocations/{consumer_uuid}'): 'Delete the allocations of a consumer',
    ('GET', '/usages'): 'Show the usages of a project',
    ('POST', '/reshaper'): 'Reshape inventories and allocations',
    ('GET', '/traits'): 'List traits',
    ('GET', '/traits/{name}'): 'Show a trait',
    ('PUT', '/traits/{name}'): 'Create a custom trait',
    ('DELETE', '/traits/{name}'): 'Delete a custom trait',
    ('POST', '/claims'): 'Schedule and claim',
    ('GET', '/capacity'): 'Show how many requests fit',
    ('GET', '/status'): 'Show the status page',
    ('GET', '/status.json'): 'Show the status as JSON',
    ('GET', '/quotas/{project_id}'): 'Show the quota of a project',
    ('PUT', '/quotas/{project_id}'): 'Set the quota of a project',
    ('DELETE', '/quotas/{project_id}'): 'Delete the quota of a project',
    ('GET', '/v1'): 'Show the v1 API',
    ('GET', '/v1/conductors'): 'List conductors',
    ('GET', '/v1/conductors/{hostname}'): 'Show a conductor',
    ('GET', '/v1/nodes'): 'List nodes',
    ('POST', '/v1/nodes'): 'Create a node',
    ('GET', '/v1/nodes/detail'): 'List nodes with details',
    ('GET', _NODE): 'Show a node',
    ('PATCH', _NODE): 'Update a node',
    ('DELETE', _NODE): 'Delete a node',
    ('GET', _NODE + '/states'): 'Show the states of a node',
    ('PUT', _NODE + '/states/provision'): 'Change the provision state of a node',
    ('PUT', _NODE + '/states/power'): 'Change the power state of a node',
    ('PUT', _NODE + '/states/boot_mode'): 'Change the boot mode of a node',
    ('GET', _NODE + '/history'): 'List the history of a node',
    ('GET', _NODE + '/history/{event}'): 'Show an event of a node history',
    ('GET', _NODE + '/inventory'): 'Show the inventory of a node',
    ('GET', '/v1/shards'): 'List shards',
    ('GET', _NODE + '/children'): 'List the children of a node',
    ('PUT', _NODE + '/states/secure_boot'): 'Change the secure boot state of a node',
    ('PUT', _NODE + '/maintenance'): 'Put a node in maintenance',
    ('DELETE', _NODE + '/maintenance'): 'Take a node out of maintenance',
    ('GET', _NODE + '/traits'): 'List the traits of a node',
    ('PUT', _NODE + '/traits'): 'Set the traits of a node',
    ('DELETE', _NODE + '/traits'): 'Delete the traits of a node',
    ('PUT', _NODE + '/traits/{trait}'): 'Add a trait to a node',
    ('DELETE', _NODE + '/traits/{trait}'): 'Remove a trait from a node',
    ('GET', _NODE + '/allocation'): 'Show the allocation of a node',
    ('DELETE', _NODE + '/allocation'): 'Delete the allocation of a node',
    ('ANY', _NODE + '/allocation/{anything}'): 'Paths below a node allocation',
    ('GET', '/v1/allocations'): 'List node allocations',
    ('POST', '/v1/allocations'): 'Create a node allocation',
    ('GET', '/v1/allocations/{allocation}'): 'Show a node allocation',
    ('PATCH', '/v1/allocations/{allocation}'): 'Update a node allocation',
    ('DELETE', '/v1/allocations/{allocation}'): 'Delete a node allocation',
    ('GET', '/v1/chassis'): 'List chassis',
    ('POST', '/v1/chassis'): 'Create a chassis',
    ('GET', '/v1/chassis/detail'): 'List chassis with details',
    ('GET', '/v1/chassis/{chassis}'): 'Show a chassis',
    ('PATCH', '/v1/chassis/{chassis}'): 'Update a chassis',
    ('DELETE', '/v1/chassis/{chassis}'): 'Delete a chassis',
    ('GET', '/v1/chassis/{chassis}/nodes'): 'List the nodes of a chassis',
    ('GET', '/v1/chassis/{chassis}/nodes/detail'): 'List the nodes of a chassis with details',
    ('GET', '/v1/drivers'): 'List drivers',
    ('GET', '/v1/drivers/{driver}'): 'Show a driver',
}

# what a response field is, where cli/api_ref/words.py (the request fields)
# has no sentence or one that reads as a request's; keys as there
FIELDS = {
    'links': 'Links to the resource itself and to what belongs to it.',
    'generation': 'The generation of the provider, sent back by writes to it.',
    'resource_provider_generation': 'The generation of the provider.',
    'uuid': 'The UUID of the resource.',
    'name': 'The name of the resource.',
    'parent_provider_uuid': 'The UUID of the parent provider (null for a root).',
    'root_provider_uuid': 'The UUID of the root provider of its tree.',
    'resource_providers': 'The resource providers.',
    'resource_classes': 'The resource classes.',
    'traits': 'The traits.',
    'aggregates': 'The aggregate UUIDs.',
    'inventories': 'The inventories, keyed by resource class.',
    'allocations': 'The allocations, keyed by provider (or consumer) UUID.',
    'usages': 'The amounts in use, keyed by resource class.',
    'resources': 'Amounts, keyed by resource class.',
    'allocation_requests': 'The ways the request can be met, each a body for '
                           '``PUT /allocations/{consumer_uuid}``.',
    'provider_summaries': 'Capacity and usage of every provider the candidates name.',
    'consumer_generation': 'The generation of the consumer, sent back by writes to it.',
    'consumer_type': 'The type of the consumer (1.38).',
    'consumers': 'The consumers, keyed by UUID.',
    'project_id': 'The project of the consumer.',
    'user_id': 'The user of the consumer.',
    'versions': 'The API versions served, with their microversion range.',
    'version': 'The version of the API, with its microversion range.',
    'claims': 'One claim per consumer: its allocations as '
              '``GET /allocations/{consumer_uuid}`` shows them.',
    'weigher': 'The weigher that chose the providers.',
    'fits': 'How many times the request fits, per group of providers.',
    'enforced': 'Whether ``[quota] enforce`` makes berth refuse what exceeds the quota.',
    'source': 'Where the limits come from (``berth`` or ``keystone``).',
    'warning': 'What the operator should know about the answer.',
    'id': 'The id of the API version.',
    'media_types': 'The media types served.',
    'href': 'The URL of the link.',
    'rel': 'What the link is to the resource (``self``, ``bookmark``).',
    'min_version': 'The lowest microversion served.',
    'max_version': 'The highest microversion served.',
    'status': 'The status of the API version (``CURRENT``).',
    '/v1:base': 'The base media type.',
    '/v1:type': 'The media type.',
    '/v1/conductors:conductor_group': 'The conductor group of the conductor.',
    'state': 'The state of the allocation (``allocating``, ``active``, ``error``).',
    'created_at': 'When the resource was created.',
    'updated_at': 'When the resource was last updated (null until then).',
    'allocations_url': 'The link to the allocations.',
    '/v1:allocations': 'The node allocations.',
    '/v1:nodes': 'The nodes.',
    '/v1:chassis': 'The chassis.',
    '/v1:conductors': 'The conductors.',
    '/v1:shards': 'The shards (1.82).',
    '/v1:drivers': 'The drivers.',
    '/v1/allocations:name': 'The name of the allocation.',
    '/v1/allocations:uuid': 'The UUID of the allocation.',
    '/v1/allocations:node_uuid': 'The node the allocation holds (null until placed).',
    '/v1/allocations:candidate_nodes': 'The nodes the allocation may choose from.',
    '/v1/allocations:last_error': 'Why the allocation failed (null unless ``error``).',
    '/v1/allocations:owner': 'The project owning the allocation.',
    '/v1/allocations:traits': 'The traits the node must have.',
    '/v1/allocations:extra': 'Free-form data of the allocation.',
    '/v1/allocations:resource_class': 'The resource class of the node wanted.',
    '/v1/nodes/{node}/allocation:candidate_nodes': 'The nodes the allocation could '
                                                   'choose from.',
    '/v1/nodes/{node}/allocation:node_uuid': 'The node (the one of the path).',
    '/v1/nodes:allocation_uuid': 'The allocation holding the node.',
    '/v1/nodes:instance_uuid': 'The instance deployed on the node.',
    '/v1/nodes:provision_state': 'The provision state of the node.',
    '/v1/nodes:target_provision_state': 'The provision state the node moves to.',
    '/v1/nodes:provision_updated_at': 'When the provision state last changed.',
    '/v1/nodes:power_state': 'The power state of the node.',
    '/v1/nodes:target_power_state': 'The power state the node moves to.',
    '/v1/nodes:maintenance': 'Whether the node is in maintenance.',
    '/v1/nodes:maintenance_reason': 'Why the node is in maintenance.',
    '/v1/nodes:last_error': 'The last error of an action on the node.',
    '/v1/nodes:fault': 'The fault that put the node in maintenance.',
    '/v1/nodes:console_enabled': 'Whether the console is enabled.',
    '/v1/nodes:driver_internal_info': "The driver's own data on the node.",
    '/v1/nodes:reservation': 'The conductor holding a lock on the node.',
    '/v1/nodes:clean_step': 'The current cleaning step.',
    '/v1/nodes:deploy_step': 'The current deploy step.',
    '/v1/nodes:service_step': 'The current service step (always empty: berth runs no '
                               'steps; 1.87).',
    '/v1/nodes:protected': 'Whether the node is protected from undeploying.',
    '/v1/nodes:protected_reason': 'Why the node is protected.',
    '/v1/nodes:inspection_started_at': 'When inspection started.',
    '/v1/nodes:inspection_finished_at': 'When inspection finished.',
    '/v1/nodes:conductor': 'The conductor managing the node.',
    '/v1/nodes:health': 'The health the BMC reports (always null: berth has no BMC; '
                        '1.109).',
    '/v1:description': 'A description of the resource.',
    '/v1/drivers:properties': 'Links to the properties of the driver.',
    '/v1/conductors:hostname': 'The hostname of the conductor.',
    '/v1/conductors:alive': 'Whether the conductor is alive.',
    '/v1/drivers:hosts': 'The conductors that serve the driver.',
    '/v1/drivers:name': 'The name of the driver.',
    '/v1/drivers:type': 'The type of the driver (``dynamic``: a hardware type).',
    '/v1/conductors:drivers': 'The drivers the conductor serves.',
    '/v1/chassis:nodes': 'Links to the nodes of the chassis.',
    '/v1/nodes/{node}/history:history': 'The events of the node, oldest first.',
    '/v1/nodes/{node}/history:next': 'The link to the next page of events.',
    '/v1/nodes/{node}/history:uuid': 'The UUID of the event.',
    '/v1/nodes/{node}/history:created_at': 'When the event happened.',
    '/v1/nodes/{node}/history:severity': 'The severity of the event (``INFO``, ``ERROR``).',
    '/v1/nodes/{node}/history:event': 'What happened (in a list, cut to 255 characters).',
    '/v1/nodes/{node}/history:event_type': 'The kind of event (``provisioning``, '
                                           '``maintenance``, ``power``).',
    '/v1/nodes/{node}/history:conductor': 'The conductor that recorded the event (null '
                                          'when the API process did).',
    '/v1/nodes/{node}/history:user': 'The user whose request made the event.',
    '/v1/nodes/{node}/history:project': 'The project whose request made the event '
                                        '(1.113).',
    '/v1/nodes/{node}/history:state': 'The provision state of the node after the event '
                                      '(1.115).',
    '/v1/nodes/{node}/history:target_provision_state': 'The target provision state of '
                                                       'the node (1.115).',
    '/v1/nodes/{node}/history:duration_seconds': 'The whole seconds the node spent in '
                                                 'its state before the event (1.115).',
    '/v1/shards:shards': 'Each shard with its node count, the largest first; the nodes '
                         'without a shard are counted under ``None``.',
    '/v1/shards:name': 'The name of the shard.',
    '/v1/shards:count': 'How many nodes the shard holds.',
    '/v1/nodes/{node}/children:children': 'The UUIDs of the child nodes (1.83).',
    '/v1/nodes/{node}/children:links': 'The link to the listing of the child nodes.',
    '/v1/nodes/{node}/children:href': 'The address of the listing.',
    '/v1/nodes/{node}/children:rel': 'The relation (``children``).',
    '/status.json:generated_at': 'When berth made the answer.',
    '/status.json:refresh_seconds': 'How often the status page reloads, in seconds.',
    '/status.json:heartbeat_interval': 'How often a conductor renews its place in the '
                                       'hash ring, in seconds '
                                       '(``[coordination] ring_refresh_interval``).',
    '/status.json:heartbeat_timeout': 'The seconds without a heartbeat after which a '
                                      'conductor counts as dead '
                                      '(``[conductor] heartbeat_timeout``).',
    '/status.json:conductors': 'The conductors of the hash ring, each pinged over RPC.',
    '/status.json:unreachable': 'What this API process cannot reach now (``broker``, '
                                '``coordination``, ``database``).',
    '/status.json:registered_conductors': 'Every conductor that registered, alive or '
                                          'dead (as ``GET /v1/conductors`` lists them).',
    '/status.json:capacity': 'Per resource class with inventory: its capacity, the '
                             'amount used, the providers and the biggest consumers.',
    '/status.json:fullest_providers': 'The providers with the least free capacity, one '
                                      'row per provider and resource class.',
    '/status.json:node_allocations': 'The bare metal node allocations counted by state, '
                                     'and the oldest one still allocating.',
    '/status.json:baremetal_nodes': 'The bare metal nodes per resource class: how many '
                                    'are allocated, free and unavailable.',
    '/status.json:host': 'The hostname of the conductor.',
    '/status.json:hostname': 'The hostname of the conductor.',
    '/status.json:rpc_api_version': 'The RPC API version the conductor serves.',
    '/status.json:joined_age': 'The seconds since the conductor joined the hash ring.',
    '/status.json:heartbeat_age': "The seconds since the conductor's last heartbeat "
                                  '(null where the coordination backend does not '
                                  'publish it).',
    '/status.json:ping_ms': 'How long the conductor took to answer a ping, in '
                            'milliseconds (null when it did not).',
    '/status.json:ping_error': 'Why the ping got no answer (null when it did).',
    '/status.json:resource_class': 'The resource class.',
    '/status.json:used': 'The amount allocated.',
    '/status.json:free': 'The amount still free.',
    '/status.json:providers': 'How many providers have inventory of the class.',
    '/status.json:top_consumers': 'The consumers using the most of the class.',
    '/status.json:name': 'The name of the provider.',
    '/status.json:provider': 'The UUID of the provider.',
    '/status.json:alive': 'Whether the conductor sent a heartbeat within '
                          '``heartbeat_timeout``.',
    '/status.json:conductor_group': 'The conductor group of the conductor.',
    '/status.json:online': 'Whether the conductor is registered as online (one that '
                           'stops cleanly goes offline).',
    '/status.json:registered_at': 'When the conductor registered.',
}
_INTERFACE = 'The %s interface of the node.'
_DEFAULT_INTERFACE = 'The %s interface a node of the driver gets when it names none.'
_ENABLED_INTERFACES = 'The %s interfaces the driver can use.'
# the nodes of a chassis are nodes: their fields read as under /v1/nodes
_ALIASES = {'/v1/chassis/{chassis}/nodes': '/v1/nodes'}


def title(method, path):
    """The route's title in words."""
    return TITLES[(method, path)]


def describe(path, name):
    """The sentence of response field ``name`` under ``path``, or None."""
    for prefix, same in _ALIASES.items():
        if path.startswith(prefix):
            path = same + path[len(prefix):]
    parts = path.rstrip('/').split('/')
    while parts:
        key = '%s:%s' % ('/'.join(parts), name)
        if key in FIELDS:
            return FIELDS[key]
        parts.pop()
    if name.startswith('default_') and name.endswith('_interface'):
        return _DEFAULT_INTERFACE % name[len('default_'):-len('_interface')]
    if name.startswith('enabled_') and name.endswith('_interfaces'):
        return _ENABLED_INTERFACES % name[len('enabled_'):-len('_interfaces')]
    if name.endswith('_interface'):
        return _INTERFACE % name[:-len('_interface')]
    return FIELDS.get(name) or api_ref_words.describe(path, name)


def _kind(value):
    for kind, name in ((bool, 'boolean'), (int, 'integer'), (float, 'float'),
                       (str, 'string'), (list, 'array'), (dict, 'object')):
        if isinstance(value, kind):
            return name
    return 'string'


def fields(sample_name):
    """[(name, type)] of the fields of the answer sample ``sample_name``.

    The top-level fields, then those of the first item of a top-level list of
    objects (a collection's members: ``resource_providers``, ``nodes``, ...).
    """
    with open(os.path.join(SAMPLES, '%s-resp.json' % sample_name), encoding='utf-8') as f:
        answer = json.load(f)
    if not isinstance(answer, dict):
        return []
    rows = [(name, _kind(value)) for name, value in answer.items()]
    for value in answer.values():
        if isinstance(value, list) and value and isinstance(value[0], dict) and (
                value is not answer.get('links')):
            rows.extend((name, _kind(item)) for name, item in value[0].items()
                        if name not in answer)
    return list(dict(rows).items())
