"""The real `openstack berth ...` commands (python-berthclient, client/) against a running berth.

The plugin is installed into the test venv from test-requirements.txt
(``-e ./client``); the checkout's ``client/`` goes first on the subprocess's
PYTHONPATH so its code wins over an installed copy, as the repository root
does for berth's own packages.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from objects.placement import quota as quota_obj
from tests.functional import claim_helpers

pytestmark = pytest.mark.cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


class Result:
    def __init__(self, proc):
        self.rc, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr

    @property
    def json(self):
        assert self.rc == 0, 'rc %s\nstdout: %s\nstderr: %s' % (self.rc, self.stdout,
                                                               self.stderr)
        return json.loads(self.stdout)


@pytest.fixture
def osc(berth):
    """Run ``openstack <args>`` against the berth (admin_token, its placement URL)."""
    env = dict(os.environ, OS_AUTH_TYPE='admin_token', OS_TOKEN='admin',
               OS_ENDPOINT=berth.placement_url)
    for var in ('OS_CLOUD', 'OS_AUTH_URL', 'OS_USERNAME', 'OS_PASSWORD',
                'OS_PROJECT_NAME', 'OS_BERTH_API_VERSION'):
        env.pop(var, None)
    env['PYTHONPATH'] = os.pathsep.join(
        [str(ROOT / 'client')] + [p for p in [env.get('PYTHONPATH')] if p])

    def run(*args):
        proc = subprocess.run([OPENSTACK] + list(args), env=env, capture_output=True,
                              text=True, timeout=120)
        return Result(proc)
    return run


def test_claim_create_places_and_claims(osc, client, ctx):
    small = claim_helpers.host(client, ctx, vcpu=2, name='small')
    big = claim_helpers.host(client, ctx, vcpu=16, memory=8192, name='big')
    consumer = claim_helpers.new_uuid()
    rows = osc('berth', 'claim', 'create', '--project', 'p1', '--user', 'u1',
               '--consumer', consumer, '--resource', 'VCPU=4',
               '--resource', 'MEMORY_MB=1024', '--weigher', 'pack', '-f', 'json').json
    assert rows == [{'consumer_uuid': consumer, 'resource_provider': big,
                     'resources': {'VCPU': 4, 'MEMORY_MB': 1024}, 'project_id': 'p1',
                     'user_id': 'u1', 'consumer_generation': 1, 'weigher': 'pack'}]
    assert claim_helpers.usage(client, big) == {'VCPU': 4, 'MEMORY_MB': 1024}
    assert claim_helpers.usage(client, small) == {'VCPU': 0, 'MEMORY_MB': 0}

    pair = osc('berth', 'claim', 'create', '--project', 'p1', '--user', 'u1',
               '--count', '2', '--distinct-roots', '--resource', 'VCPU=1',
               '-f', 'value', '-c', 'resource_provider')
    assert pair.rc == 0, pair.stderr
    assert sorted(pair.stdout.split()) == sorted([small, big])
    assert claim_helpers.usage(client, small)['VCPU'] == 1
    assert claim_helpers.usage(client, big)['VCPU'] == 5


def test_claim_that_fits_nowhere_is_an_osc_error(osc, client, ctx):
    rp = claim_helpers.host(client, ctx, vcpu=2)
    result = osc('berth', 'claim', 'create', '--project', 'p1', '--user', 'u1',
                 '--resource', 'VCPU=3')
    assert result.rc == 1
    assert '(HTTP 409)' in result.stderr
    assert '[berth.no_valid_host]' in result.stderr
    assert claim_helpers.usage(client, rp) == {'VCPU': 0, 'MEMORY_MB': 0}


def test_claim_argument_errors_send_nothing(osc, client, ctx):
    rp = claim_helpers.host(client, ctx)
    result = osc('berth', 'claim', 'create', '--project', 'p1', '--user', 'u1',
                 '--resource', 'VCPU=two')
    assert result.rc == 1
    assert "--resource takes NAME=AMOUNT with an integer AMOUNT >= 1, not 'VCPU=two'" \
        in result.stderr
    assert claim_helpers.usage(client, rp) == {'VCPU': 0, 'MEMORY_MB': 0}


def test_quota_set_warns_while_limits_are_not_enforced(osc, client, ctx):
    claim_helpers.host(client, ctx)
    assert claim_helpers.claim(client, resources=[('VCPU', 3)]).status_code == 201
    result = osc('berth', 'quota', 'set', 'p1', '--resource', 'VCPU=2',
                 '--consumers', 'INSTANCE=5', '-f', 'json')
    shown = result.json
    assert 'WARNING: %s' % quota_obj.NOT_ENFORCED in result.stderr
    assert shown['enforced'] is False
    assert shown['warning'] == quota_obj.NOT_ENFORCED
    assert shown['resources'] == {'VCPU': {'limit': 2, 'usage': 3}}

    shown = osc('berth', 'quota', 'show', 'p1', '-f', 'json').json
    assert shown['enforced'] is False
    assert shown['source'] == 'berth'
    assert shown['resources'] == {'VCPU': {'limit': 2, 'usage': 3}}
    assert shown['consumers']['INSTANCE']['limit'] == 5
    table = osc('berth', 'quota', 'show', 'p1', '-c', 'resources', '-f', 'table')
    assert '| resources | VCPU=3/2 |' in table.stdout, table.stdout


def test_quota_set_keeps_the_limits_it_does_not_name(osc, client):
    osc('berth', 'quota', 'set', 'p1', '--resource', 'VCPU=8', '-f', 'json').json
    kept = osc('berth', 'quota', 'set', 'p1', '--resource', 'MEMORY_MB=1024',
               '-f', 'json').json
    assert {rc: e['limit'] for rc, e in kept['resources'].items()} == {
        'VCPU': 8, 'MEMORY_MB': 1024}
    replaced = osc('berth', 'quota', 'set', 'p1', '--replace', '--resource',
                   'VCPU=1', '-f', 'json').json
    assert {rc: e['limit'] for rc, e in replaced['resources'].items()} == {'VCPU': 1}

    user = osc('berth', 'quota', 'set', 'p1', '--user', 'u1', '--resource', 'VCPU=3',
               '-f', 'json').json
    assert user['user_id'] == 'u1'
    assert user['resources']['VCPU']['limit'] == 3
    assert osc('berth', 'quota', 'show', 'p1', '-f', 'json').json[
        'resources']['VCPU']['limit'] == 1

    deleted = osc('berth', 'quota', 'delete', 'p1')
    assert deleted.rc == 0, deleted.stderr
    limits = client.get('/quotas/p1').json()['resources']
    assert all(entry['limit'] is None for entry in limits.values()), limits
    assert client.get('/quotas/p1?user_id=u1').json()['resources']['VCPU']['limit'] == 3


def test_quota_set_of_an_unknown_class_is_an_osc_error(osc, client):
    result = osc('berth', 'quota', 'set', 'p1', '--resource', 'CUSTOM_NOPE=1')
    assert result.rc == 1
    assert '(HTTP 400)' in result.stderr
    assert 'CUSTOM_NOPE' in result.stderr
    assert client.get('/quotas/p1').json()['resources'] == {}


@pytest.fixture
def enforced(conf):
    """Listed before ``berth``: the berth starts with [quota] enforce = true."""
    conf.set_override('enforce', True, group='quota')


def test_quota_set_says_nothing_when_limits_are_enforced(enforced, osc):
    result = osc('berth', 'quota', 'set', 'p1', '--resource', 'VCPU=2', '-f', 'json')
    assert result.json['enforced'] is True
    assert 'warning' not in result.json
    assert 'WARNING' not in result.stderr
    assert osc('berth', 'quota', 'show', 'p1', '-f', 'json').json['enforced'] is True


def test_the_api_version_is_negotiated_or_taken_as_given(osc):
    negotiated = osc('--debug', 'berth', 'quota', 'show', 'p1')
    assert negotiated.rc == 0, negotiated.stderr
    assert 'OpenStack-API-Version: placement 1.39' in negotiated.stderr
    given = osc('--debug', '--os-berth-api-version', '1.10', 'berth', 'quota', 'show', 'p1')
    assert given.rc == 0, given.stderr
    assert 'OpenStack-API-Version: placement 1.10' in given.stderr
    assert 'OpenStack-API-Version: placement 1.39' not in given.stderr
    unknown = osc('--os-berth-api-version', '2.0', 'berth', 'quota', 'show', 'p1')
    assert unknown.rc == 1
    assert 'berth API version 2.0 is not supported' in unknown.stderr


def test_an_endpoint_that_is_not_placement_is_named(berth):
    """The bare-metal URL left in OS_ENDPOINT: one line naming it, not a key name."""
    env = dict(os.environ, OS_AUTH_TYPE='none', OS_ENDPOINT=berth.baremetal_url)
    for var in ('OS_CLOUD', 'OS_AUTH_URL', 'OS_TOKEN', 'OS_BERTH_API_VERSION'):
        env.pop(var, None)
    env['PYTHONPATH'] = os.pathsep.join(
        [str(ROOT / 'client')] + [p for p in [env.get('PYTHONPATH')] if p])
    proc = subprocess.run([OPENSTACK, 'berth', 'quota', 'show', 'p1'], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert 'this endpoint is not a Placement API: %s' % berth.baremetal_url.rstrip('/') \
        in proc.stderr, proc.stderr
    assert "'max_version'" not in proc.stderr
    assert 'Traceback' not in proc.stderr


def _aggregate(client, rp, agg):
    gen = client.get('/resource_providers/%s' % rp).json()['generation']
    resp = client.put('/resource_providers/%s/aggregates' % rp, json={
        'resource_provider_generation': gen, 'aggregates': [agg]})
    assert resp.status_code == 200, resp.text


def test_capacity_counts_how_many_more_fit(osc, client, ctx):
    agg = claim_helpers.new_uuid()
    big = claim_helpers.host(client, ctx, vcpu=8, memory=8192, traits=['HW_CPU_X86_AVX2'])
    small = claim_helpers.host(client, ctx, vcpu=4, memory=2048)
    _aggregate(client, small, agg)
    answer = osc('berth', 'capacity', '--resource', 'VCPU=2', '--resource',
                 'MEMORY_MB=1024', '--providers', '5', '-f', 'json').json
    assert answer == {'resources': {'VCPU': 2, 'MEMORY_MB': 1024}, 'fits': 4 + 2,
                      'aggregates': [{'uuid': agg, 'fits': 2}],
                      'providers': [{'uuid': big, 'fits': 4}, {'uuid': small, 'fits': 2}]}
    narrowed = osc('berth', 'capacity', '--resource', 'VCPU=2', '--required',
                   'HW_CPU_X86_AVX2', '-f', 'json').json
    assert (narrowed['fits'], narrowed['aggregates']) == (4, [])
    assert 'providers' not in narrowed
    table = osc('berth', 'capacity', '--resource', 'VCPU=2', '--member-of', agg,
                '-f', 'table')
    assert table.rc == 0, table.stderr
    assert '| aggregates | %s=2 |' % agg in table.stdout, table.stdout


def test_capacity_of_an_unknown_class_is_an_osc_error(osc, client):
    result = osc('berth', 'capacity', '--resource', 'CUSTOM_NOPE=1')
    assert result.rc == 1
    assert '(HTTP 400)' in result.stderr
    assert 'CUSTOM_NOPE' in result.stderr
