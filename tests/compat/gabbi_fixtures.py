"""The data and settings of Placement's gabbi fixtures, made through berth's REST API.

Each gabbit YAML names fixtures (``APIFixture``, ``AllocationFixture``, …)
that, upstream, write rows straight into Placement's database and export
``$ENVIRON`` values.  Here the same providers, inventories, traits,
aggregates and allocations are made with ordinary Placement requests against
the berth the file runs on, and the same environment names are returned for
the gabbi driver.  Facts (which providers, which amounts, which names) follow
upstream's ``placement/tests/functional/fixtures/gabbits.py``; the code is
berth's own.

``settings(names)`` gives the berth configuration a file needs (CORS, the
policy defaults, an open policy file); ``seed(names, client)`` makes its data.
"""

import json
import os
import uuid as uuidlib

from tests.compat import gabbi_topologies

# the origin upstream's CORSFixture allows (its cors.yaml asks with it)
CORS_ORIGIN = 'http://valid.example.com'


def new_uuid():
    return str(uuidlib.uuid4())


class Seeder:
    """Placement writes as upstream's fixture helpers make them (generations tracked here)."""

    VERSION = '1.39'

    def __init__(self, client):
        self.client = client
        self.generations = {}
        self.classes = set()
        self.traits = set()

    def _call(self, method, path, body, version=None, expect=(200, 201, 204)):
        resp = self.client.request(method, path, json=body, version=version or self.VERSION)
        if resp.status_code not in expect:
            raise AssertionError('seeding %s %s -> %s: %s' % (
                method, path, resp.status_code, resp.text[:500]))
        return resp.json() if resp.content else None

    def provider(self, name, *aggregates, parent=None, uuid=None):
        """A provider (uuid random unless given), then its aggregates.

        Upstream sets a fixture provider's aggregates without a generation
        bump, as a pre-1.19 ``PUT …/aggregates`` (a list body) does.
        """
        rp_uuid = uuid or new_uuid()
        body = {'name': name, 'uuid': rp_uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        made = self._call('POST', '/resource_providers', body)
        self.generations[rp_uuid] = made['generation']
        if aggregates:
            self.aggregates(rp_uuid, *aggregates)
        return rp_uuid

    def aggregates(self, rp_uuid, *aggregates):
        self._call('PUT', '/resource_providers/%s/aggregates' % rp_uuid,
                   list(aggregates), version='1.1')

    def resource_class(self, name):
        if name.startswith('CUSTOM_') and name not in self.classes:
            self._call('PUT', '/resource_classes/%s' % name, None)
            self.classes.add(name)

    def inventory(self, rp_uuid, rc, total, **fields):
        """One inventory record; ``max_unit`` is the total unless given, as upstream's helper."""
        self.resource_class(rc)
        body = {'resource_class': rc, 'total': total, 'max_unit': total,
                'resource_provider_generation': self.generations[rp_uuid]}
        body.update(fields)
        made = self._call('POST', '/resource_providers/%s/inventories' % rp_uuid, body)
        self.generations[rp_uuid] = made['resource_provider_generation']

    def set_traits(self, rp_uuid, *traits):
        for trait in traits:
            if trait.startswith('CUSTOM_') and trait not in self.traits:
                self._call('PUT', '/traits/%s' % trait, None)
                self.traits.add(trait)
        made = self._call('PUT', '/resource_providers/%s/traits' % rp_uuid, {
            'traits': list(traits),
            'resource_provider_generation': self.generations[rp_uuid]})
        self.generations[rp_uuid] = made['resource_provider_generation']

    def allocate(self, rp_uuid, consumer, user_id, project_id, resources):
        """``resources`` on ``rp_uuid`` for a new ``consumer`` of ``user_id``/``project_id``."""
        self._call('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp_uuid: {'resources': dict(resources)}},
            'project_id': project_id, 'user_id': user_id,
            'consumer_generation': None}, version='1.28')
        made = self._call('GET', '/resource_providers/%s' % rp_uuid, None)
        self.generations[rp_uuid] = made['generation']
        return consumer


def api_environ():
    """What upstream's APIFixture exports (fresh values per file)."""
    env = {name: new_uuid() for name in (
        'RP_UUID', 'RP_NAME', 'RP_UUID1', 'RP_NAME1', 'RP_UUID2', 'RP_NAME2',
        'PROJECT_ID', 'ADMIN_PROJECT_ID', 'SERVICE_PROJECT_ID', 'USER_ID',
        'PROJECT_ID_ALT', 'USER_ID_ALT', 'INSTANCE_UUID', 'MIGRATION_UUID',
        'CONSUMER_UUID', 'PARENT_PROVIDER_UUID', 'ALT_PARENT_PROVIDER_UUID')}
    env.update(CUSTOM_RES_CLASS='CUSTOM_IRON_NFV', CUSTOM_RES_CLASS1='CUSTOM_IRON_NFV1',
               CUSTOM_RES_CLASS2='CUSTOM_IRON_NFV2')
    return env


# fixture name -> the function that makes its data (APIFixture's own values
# are made for every file); the policy-only fixtures make none
BUILDERS = {
    'APIFixture': None,
    'OpenPolicyFixture': None,
    'SecureRBACPolicyFixture': None,
    'LegacyRBACPolicyFixture': None,
    'CORSFixture': None,
    'AllocationFixture': gabbi_topologies.allocations,
    'SharedStorageFixture': gabbi_topologies.shared_storage,
    'NUMAAggregateFixture': gabbi_topologies.numa_aggregates,
    'NUMANetworkFixture': gabbi_topologies.numa_network,
    'DeepNUMANetworkFixture': gabbi_topologies.deep_numa_network,
    'NonSharedStorageFixture': gabbi_topologies.non_shared_storage,
    'GranularFixture': gabbi_topologies.granular,
    'NeutronQoSMultiSegmentFixture': gabbi_topologies.neutron_qos_multisegment,
}


class UnknownFixture(Exception):
    """A gabbit names a fixture this harness does not reproduce."""


def check_known(names):
    unknown = [n for n in names if n not in BUILDERS]
    if unknown:
        raise UnknownFixture('no reproduction of upstream fixture(s) %s' % ', '.join(unknown))


def settings(names, state_dir, policy_rules):
    """berth configuration overrides for a file declaring fixtures ``names``.

    Every fixture runs noauth2 (berth's test default) on Placement's legacy
    policy defaults but SecureRBACPolicyFixture's files, on the new ones.
    ``policy_rules`` are berth's Placement rule names; OpenPolicyFixture opens
    each of them but ``admin_api`` to anyone (``@``), through a policy file.
    """
    check_known(names)
    overrides = {'oslo_policy.enforce_new_defaults': 'SecureRBACPolicyFixture' in names}
    if 'CORSFixture' in names:
        overrides['cors.allowed_origin'] = [CORS_ORIGIN]
        overrides['cors.allow_headers'] = ['openstack-api-version']
    if 'OpenPolicyFixture' in names:
        path = os.path.join(str(state_dir), 'open-policy.json')
        with open(path, 'w') as f:
            json.dump({rule: '@' for rule in policy_rules if rule != 'admin_api'}, f)
        overrides['oslo_policy.policy_file'] = path
    return overrides


def seed(names, client):
    """Make the data of fixtures ``names`` on the berth behind ``client``; the $ENVIRON values."""
    check_known(names)
    env = api_environ()
    seeder = Seeder(client)
    for name in names:
        builder = BUILDERS[name]
        if builder is not None:
            env.update(builder(seeder, env))
    return env
