"""Drives metalsmith, unmodified, against a berth: run inside the metalsmith suite venv.

Started as a script by the venv's own python (never imported by berth or by
pytest's process): it imports the standard library, openstacksdk and
metalsmith only.  ``OS_CLIENT_CONFIG_FILE`` names a ``clouds.yaml`` whose
cloud ``berth`` is berth's ``/v1`` root with ``auth_type: none``; the cloud
holds no node yet.  The checks run in order (each builds on the state the
ones before it left) and print one JSON object on stdout::

    {"results": {"<check>": ["success" | "fail", "<detail>"], …},
     "microversions": {"advertised": "1.115", "sent": {"GET /v1/nodes/{id}": ["1.109"], …}}}

``sent`` is the ``X-OpenStack-Ironic-API-Version`` each method and path
(ids as ``{id}``) was called with (read from keystoneauth's request log).  A failing check records
its traceback and the next one still runs.  Logs go to stderr.
"""

import json
import logging
import os
import re
import subprocess
import sys
import traceback

import metalsmith
from metalsmith import exceptions, sources
from openstack import config as os_config

CLOUD = 'berth'
METALSMITH = os.path.join(os.path.dirname(sys.executable), 'metalsmith')
VERSION_RE = re.compile(r'X-OpenStack-Ironic-API-Version: (1\.\d+)')
URL_RE = re.compile(r' (https?://\S+)')


class VersionLog(logging.Handler):
    """The microversions each call was sent with (keystoneauth's ``REQ: curl`` lines).

    Keyed ``"<METHOD> /v1/<collection>/{id}/<rest>"``: the segment after the
    collection (an id, a name, ``detail``) reads ``{id}``.
    """

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.sent = {}

    def emit(self, record):
        message = record.getMessage()
        version, url = VERSION_RE.search(message), URL_RE.search(message)
        if not message.startswith('REQ:') or ' -X ' not in message or not version or not url:
            return
        method = message.split(' -X ')[1].split()[0]
        path = re.sub(r'^https?://[^/]+', '', url.group(1).strip('"\'')).split('?')[0]
        parts = path.split('/')
        if 'v1' in parts and len(parts) > parts.index('v1') + 2:
            parts[parts.index('v1') + 2] = '{id}'
        self.sent.setdefault('%s %s' % (method, '/'.join(parts)), set()).add(version.group(1))


def cli(*args):
    proc = subprocess.run([METALSMITH, '--os-cloud', CLOUD] + list(args),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, 'metalsmith %s: rc %d\n%s\n%s' % (
        ' '.join(args), proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout


def value_rows(text):
    """``metalsmith -f value`` rows, split on single spaces (empty fields kept)."""
    return [line.split(' ') for line in text.splitlines() if line.strip()]


class Scenario:
    def __init__(self):
        region = os_config.OpenStackConfig().get_one(CLOUD)
        self.api = metalsmith.Provisioner(cloud_region=region)
        self.bm = self.api.connection.baremetal
        self.nodes = {}

    def _enroll(self, name, resource_class, capabilities, traits=()):
        node = self.bm.create_node(name=name, driver='fake-hardware',
                                   resource_class=resource_class,
                                   properties={'capabilities': capabilities,
                                               'local_gb': 20})
        self.bm.set_node_provision_state(node, 'manage', wait=True, timeout=60)
        self.bm.set_node_provision_state(node, 'provide', wait=True, timeout=60)
        for trait in traits:
            self.bm.add_node_trait(node, trait)
        self.nodes[name] = node.id

    def check_setup(self):
        """Three available nodes, made through openstacksdk (what an operator enrolls)."""
        self._enroll('ms-gold-uefi', 'gold', 'boot_mode:uefi', ['CUSTOM_GPU'])
        self._enroll('ms-gold-bios', 'gold', 'boot_mode:bios')
        self._enroll('ms-silver', 'silver', 'boot_mode:uefi')

    def check_reserve_node_resource_class_traits_capabilities(self):
        node = self.api.reserve_node('gold', capabilities={'boot_mode': 'uefi'},
                                     traits=['CUSTOM_GPU'], hostname='ms-host-1')
        assert node.id == self.nodes['ms-gold-uefi'], node.name
        assert node.allocation_id and node.instance_id == node.allocation_id, node
        # metalsmith records the requested capabilities in instance_info
        assert node.instance_info.get('capabilities') == {'boot_mode': 'uefi'}, node.instance_info
        allocation = self.bm.get_allocation('ms-host-1')
        assert (allocation.state, allocation.node_id, allocation.resource_class,
                allocation.traits) == ('active', node.id, 'gold', ['CUSTOM_GPU']), allocation

    def check_reserve_node_no_capability_match(self):
        # the only unreserved gold node is bios: metalsmith's own prefilter says so
        try:
            self.api.reserve_node('gold', capabilities={'boot_mode': 'uefi'})
        except exceptions.CapabilitiesNotFound as exc:
            assert 'boot_mode=bios (1 node(s))' in str(exc), exc
        else:
            raise AssertionError('reserved a node without the capability')

    def check_reserve_node_allocation_error(self):
        # no prefilter (no capabilities): berth's allocation API finds no match, and
        # metalsmith deletes the failed allocation
        try:
            self.api.reserve_node('silver', traits=['CUSTOM_GPU'])
        except exceptions.ReservationFailed as exc:
            assert 'no suitable nodes have the requested traits CUSTOM_GPU' in str(exc), exc
        else:
            raise AssertionError('reserved a silver node with CUSTOM_GPU')
        assert [a.name for a in self.bm.allocations()] == ['ms-host-1']

    def check_show_instance(self):
        instance = self.api.show_instance('ms-host-1')
        assert instance.uuid == self.nodes['ms-gold-uefi'], instance.uuid
        assert instance.hostname == 'ms-host-1'
        assert instance.state == metalsmith.InstanceState.DEPLOYING, instance.state
        assert instance.allocation.name == 'ms-host-1'
        assert not instance.is_deployed

    def check_list_instances(self):
        listed = self.api.list_instances()
        assert [(i.hostname, i.state.name) for i in listed] == [('ms-host-1', 'DEPLOYING')]

    def check_cli_list(self):
        rows = value_rows(cli('-f', 'value', 'list'))
        assert len(rows) == 1, rows
        uuid, name, allocation, hostname, state = rows[0][:5]
        assert (uuid, name, hostname, state) == (
            self.nodes['ms-gold-uefi'], 'ms-gold-uefi', 'ms-host-1', 'DEPLOYING'), rows
        assert allocation == self.bm.get_allocation('ms-host-1').id

    def check_cli_show(self):
        table = cli('show', 'ms-host-1')
        assert 'ms-host-1' in table and 'DEPLOYING' in table, table
        rows = value_rows(cli('-f', 'value', '-c', 'Node Name', '-c', 'State',
                              'show', self.nodes['ms-gold-uefi']))
        assert rows == [['ms-gold-uefi', 'DEPLOYING']], rows

    def check_unprovision_reserved_node(self):
        # metalsmith's release: clean up (the allocation is deleted: the node is
        # not active), then the "deleted" verb, which Ironic refuses for an
        # available node: the reservation is gone all the same
        try:
            self.api.unprovision_node('ms-host-1')
        except exceptions.DeploymentFailed as exc:
            assert 'available' in str(exc), exc
        else:
            raise AssertionError('"deleted" accepted for an available node')
        node = self.bm.get_node(self.nodes['ms-gold-uefi'])
        assert (node.provision_state, node.allocation_id, node.instance_id) == (
            'available', None, None), node
        assert list(self.bm.allocations()) == []
        assert self.api.list_instances() == []

    def check_provision_node(self):
        # reserves the node itself (candidate_nodes), writes instance_info,
        # then asks Ironic to validate the node's interfaces
        image = sources.HttpWholeDiskImage('http://images.example/disk.qcow2',
                                           checksum='0' * 64)
        try:
            self.api.provision_node('ms-gold-bios', image, nics=[], hostname='ms-host-2')
        finally:
            node = self.bm.get_node(self.nodes['ms-gold-bios'])
            # metalsmith's clean-up on failure released what it reserved
            assert (node.provision_state, node.allocation_id) == ('available', None), node

    def check_deploy_outside_metalsmith(self):
        # deployed as metalsmith would after validate: reserve, then "active"
        node = self.api.reserve_node('gold', capabilities={'boot_mode': 'bios'},
                                     hostname='ms-host-3')
        self.bm.set_node_provision_state(node, 'active', wait=True, timeout=60)
        instance = self.api.show_instance('ms-host-3')
        assert (instance.state, instance.is_deployed, instance.is_healthy) == (
            metalsmith.InstanceState.ACTIVE, True, True), instance.state
        assert [i.hostname for i in self.api.list_instances()] == ['ms-host-3']

    def check_cli_list_deployed(self):
        # a deployed instance's row carries its IP addresses: Neutron's ports
        rows = value_rows(cli('-f', 'value', 'list'))
        assert [row[3:5] for row in rows] == [['ms-host-3', 'ACTIVE']], rows

    def check_unprovision_active_node(self):
        node = self.api.unprovision_node('ms-host-3', wait=60)
        assert (node.provision_state, node.allocation_id, node.instance_id) == (
            'available', None, None), node
        assert list(self.bm.allocations()) == []


def main():
    versions = VersionLog()
    session_log = logging.getLogger('keystoneauth.session')
    session_log.setLevel(logging.DEBUG)
    session_log.addHandler(versions)
    session_log.propagate = False
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    scenario = Scenario()
    results = {}
    for name in [n for n in vars(Scenario) if n.startswith('check_')]:
        try:
            getattr(scenario, name)()
            results[name[len('check_'):]] = ('success', '')
        except Exception:
            results[name[len('check_'):]] = ('fail', traceback.format_exc())
    advertised = scenario.bm.get_endpoint_data().max_microversion
    json.dump({'results': results,
               'microversions': {
                   'advertised': '%d.%d' % tuple(advertised) if advertised else None,
                   'sent': {k: sorted(v) for k, v in versions.sent.items()}}},
              sys.stdout)


if __name__ == '__main__':
    main()
