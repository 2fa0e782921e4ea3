"""A node's ``network_data`` (Ironic API 1.66): the OpenStack network_data.json
layout a ramdisk reads (``links``, ``networks``, ``services``).

berth's own schema of the parts Ironic requires: the three lists, each link
with ``id``, ``type`` and a MAC address (``ethernet_mac_address``, or
``vlan_mac_address`` with ``vlan_link`` and ``vlan_id`` for a VLAN), each
network with ``id``, ``link``, ``network_id`` and ``type``, each service
with ``address`` and ``type``.  Null or ``{}`` means none.
"""

_STRING = {'type': 'string'}
_LINK = {
    'type': 'object',
    'properties': {'id': _STRING, 'type': _STRING,
                   'ethernet_mac_address': _STRING, 'vlan_mac_address': _STRING,
                   'vlan_link': _STRING, 'vlan_id': {'type': 'integer'},
                   'mtu': {'type': ['integer', 'null']}, 'vif_id': _STRING,
                   'bond_mode': _STRING, 'bond_links': {'type': 'array'}},
    'required': ['id', 'type'],
    'anyOf': [{'required': ['ethernet_mac_address']},
              {'required': ['vlan_mac_address', 'vlan_link', 'vlan_id']}],
}
_NETWORK = {
    'type': 'object',
    'properties': {'id': _STRING, 'link': _STRING, 'network_id': _STRING,
                   'type': _STRING, 'ip_address': _STRING, 'netmask': _STRING,
                   'routes': {'type': 'array', 'items': {'type': 'object'}}},
    'required': ['id', 'link', 'network_id', 'type'],
}
_SERVICE = {'type': 'object', 'properties': {'address': _STRING, 'type': _STRING},
            'required': ['address', 'type']}
SCHEMA = {
    'type': 'object',
    'properties': {'links': {'type': 'array', 'items': _LINK},
                   'networks': {'type': 'array', 'items': _NETWORK},
                   'services': {'type': 'array', 'items': _SERVICE}},
    'required': ['links', 'networks', 'services'],
}
