"""The real `openstack resource ...` client (osc-placement) against a running berth."""

import json
import os
import subprocess
import sys
import uuid as uuidlib

import pytest

# the client's commands and output over HTTP: what the engine answers under
# them is pinned by the API tests on every engine (make test-db-parity), so
# these run once, on SQLite (they are among the slowest of the parity passes)
pytestmark = [pytest.mark.cli, pytest.mark.sqlite_only(
    reason='osc-placement over HTTP; the API tests pin each engine\'s answers')]

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture
def osc(berth):
    """Run ``openstack <args> -f json`` against the berth; the parsed output."""
    return _runner(berth.placement_url)


@pytest.fixture
def osc_prefixed(berth):
    """Like ``osc``, with the endpoint a devstack-style catalog gives: ``…/placement``."""
    return _runner(berth.placement_url + '/placement')


def _runner(endpoint):
    env = dict(os.environ, OS_AUTH_TYPE='admin_token', OS_TOKEN='admin',
               OS_ENDPOINT=endpoint)
    for var in ('OS_CLOUD', 'OS_AUTH_URL', 'OS_USERNAME', 'OS_PASSWORD',
                'OS_PROJECT_NAME'):
        env.pop(var, None)

    def run(*args, fmt=True, expect_fail=False):
        cmd = [OPENSTACK, '--os-placement-api-version', '1.39'] + list(args)
        if fmt:
            cmd += ['-f', 'json']
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=120)
        if expect_fail:
            assert proc.returncode != 0, proc.stdout
            return proc.stderr
        assert proc.returncode == 0, 'stdout: %s\nstderr: %s' % (proc.stdout,
                                                                 proc.stderr)
        return json.loads(proc.stdout) if fmt and proc.stdout.strip() else None
    return run


def test_the_placement_prefix_works_as_the_endpoint(osc_prefixed):
    rp = osc_prefixed('resource', 'provider', 'create', 'cli-prefixed')['uuid']
    osc_prefixed('resource', 'provider', 'inventory', 'set', rp,
                 '--resource', 'VCPU=4')
    assert [p['uuid'] for p in osc_prefixed('resource', 'provider', 'list')] == [rp]
    shown = osc_prefixed('resource', 'provider', 'inventory', 'show', rp, 'VCPU')
    assert shown['total'] == 4


def test_provider_lifecycle(osc):
    rp = str(uuidlib.uuid4())
    created = osc('resource', 'provider', 'create', '--uuid', rp, 'cli-node-1')
    assert created['uuid'] == rp
    assert created['name'] == 'cli-node-1'
    assert created['generation'] == 0
    assert created['root_provider_uuid'] == rp

    child = osc('resource', 'provider', 'create', '--parent-provider', rp, 'cli-child')
    assert child['parent_provider_uuid'] == rp
    assert child['root_provider_uuid'] == rp

    listed = osc('resource', 'provider', 'list')
    assert {p['uuid'] for p in listed} == {rp, child['uuid']}

    shown = osc('resource', 'provider', 'show', rp)
    assert shown['name'] == 'cli-node-1'

    renamed = osc('resource', 'provider', 'set', '--name', 'cli-node-renamed', rp)
    assert renamed['name'] == 'cli-node-renamed'
    assert renamed['generation'] == 0

    osc('resource', 'provider', 'delete', child['uuid'], fmt=False)
    osc('resource', 'provider', 'delete', rp, fmt=False)
    assert osc('resource', 'provider', 'list') == []
    err = osc('resource', 'provider', 'show', rp, expect_fail=True)
    assert 'No resource provider with uuid' in err


def test_inventory_classes_traits_aggregates(osc):
    rp = osc('resource', 'provider', 'create', 'cli-node-2')['uuid']

    osc('resource', 'class', 'create', 'CUSTOM_BAREMETAL_GOLD', fmt=False)
    classes = {c['name'] for c in osc('resource', 'class', 'list')}
    assert {'VCPU', 'CUSTOM_BAREMETAL_GOLD'} <= classes

    inv = osc('resource', 'provider', 'inventory', 'set', rp,
              '--resource', 'VCPU=16', '--resource', 'VCPU:allocation_ratio=4.0',
              '--resource', 'MEMORY_MB=2048', '--resource', 'MEMORY_MB:step_size=128',
              '--resource', 'CUSTOM_BAREMETAL_GOLD=1')
    by_class = {row['resource_class']: row for row in inv}
    assert by_class['VCPU']['total'] == 16
    assert by_class['VCPU']['allocation_ratio'] == 4.0
    assert by_class['MEMORY_MB']['step_size'] == 128
    listed = {row['resource_class']: row
              for row in osc('resource', 'provider', 'inventory', 'list', rp)}
    assert set(listed) == {'VCPU', 'MEMORY_MB', 'CUSTOM_BAREMETAL_GOLD'}
    assert listed['MEMORY_MB']['total'] == 2048

    osc('resource', 'provider', 'inventory', 'delete', rp,
        '--resource-class', 'CUSTOM_BAREMETAL_GOLD', fmt=False)
    listed = osc('resource', 'provider', 'inventory', 'list', rp)
    assert {row['resource_class'] for row in listed} == {'VCPU', 'MEMORY_MB'}

    usages = osc('resource', 'provider', 'usage', 'show', rp)
    assert {u['resource_class']: u['usage'] for u in usages} == {'VCPU': 0,
                                                                 'MEMORY_MB': 0}

    osc('trait', 'create', 'CUSTOM_RAID5', fmt=False)
    names = {t['name'] for t in osc('trait', 'list')}
    assert {'CUSTOM_RAID5', 'HW_CPU_X86_AVX2'} <= names
    traits = osc('resource', 'provider', 'trait', 'set', rp,
                 '--trait', 'CUSTOM_RAID5', '--trait', 'HW_CPU_X86_AVX2')
    assert {t['name'] for t in traits} == {'CUSTOM_RAID5', 'HW_CPU_X86_AVX2'}
    traits = osc('resource', 'provider', 'trait', 'list', rp)
    assert {t['name'] for t in traits} == {'CUSTOM_RAID5', 'HW_CPU_X86_AVX2'}
    assert {t['name'] for t in osc('trait', 'list', '--associated')} == {
        'CUSTOM_RAID5', 'HW_CPU_X86_AVX2'}

    agg = str(uuidlib.uuid4())
    gen = osc('resource', 'provider', 'show', rp)['generation']
    aggs = osc('resource', 'provider', 'aggregate', 'set', rp, '--aggregate', agg,
               '--generation', str(gen))
    assert [a['uuid'] for a in aggs] == [agg]
    assert [a['uuid'] for a in osc('resource', 'provider', 'aggregate', 'list', rp)] \
        == [agg]

    found = osc('resource', 'provider', 'list', '--resource', 'VCPU=32',
                '--required', 'CUSTOM_RAID5', '--member-of', agg)
    assert [p['uuid'] for p in found] == [rp]
    assert osc('resource', 'provider', 'list', '--resource', 'VCPU=65') == []

    # a stale generation is refused with the conflict the client understands
    err = osc('resource', 'provider', 'aggregate', 'set', rp, '--aggregate', agg,
              '--generation', str(gen), expect_fail=True)
    assert 'generation' in err.lower() or 'conflict' in err.lower()


def test_inventory_class_set_amend_and_deletes(osc):
    rp = osc('resource', 'provider', 'create', 'cli-node-3')['uuid']
    osc('resource', 'provider', 'inventory', 'set', rp, '--resource', 'VCPU=8')
    row = osc('resource', 'provider', 'inventory', 'class', 'set', rp, 'VCPU',
              '--total', '16', '--max_unit', '4', '--reserved', '1')
    assert (row['total'], row['max_unit'], row['reserved']) == (16, 4, 1)
    shown = osc('resource', 'provider', 'inventory', 'show', rp, 'VCPU')
    assert (shown['total'], shown['max_unit'], shown['reserved']) == (16, 4, 1)

    amended = osc('resource', 'provider', 'inventory', 'set', rp, '--amend',
                  '--resource', 'DISK_GB=100')
    assert {r['resource_class']: r['total'] for r in amended} == {'VCPU': 16,
                                                                  'DISK_GB': 100}

    osc('trait', 'create', 'CUSTOM_TEMP', fmt=False)
    osc('resource', 'provider', 'trait', 'set', rp, '--trait', 'CUSTOM_TEMP')
    osc('resource', 'provider', 'trait', 'delete', rp, fmt=False)
    assert osc('resource', 'provider', 'trait', 'list', rp) == []
    osc('trait', 'delete', 'CUSTOM_TEMP', fmt=False)
    assert 'CUSTOM_TEMP' not in {t['name'] for t in osc('trait', 'list')}
