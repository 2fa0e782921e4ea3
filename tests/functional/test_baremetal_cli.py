"""The real `openstack baremetal ...` client (python-ironicclient) against a running berth."""

import json
import os
import subprocess
import sys

import pytest

# the client's commands and output over HTTP: what the engine answers under
# them is pinned by the API tests on every engine (make test-db-parity), so
# these run once, on SQLite (they are among the slowest of the parity passes)
pytestmark = [pytest.mark.cli, pytest.mark.sqlite_only(
    reason='python-ironicclient over HTTP; the API tests pin each engine\'s answers')]

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture
def osc(berth):
    """Run ``openstack <args>`` with OS_AUTH_TYPE=none; the parsed JSON output."""
    env = dict(os.environ, OS_AUTH_TYPE='none', OS_ENDPOINT=berth.baremetal_url)
    for var in ('OS_CLOUD', 'OS_AUTH_URL', 'OS_USERNAME', 'OS_PASSWORD',
                'OS_PROJECT_NAME', 'OS_TOKEN'):
        env.pop(var, None)

    def run(*args, fmt=True, expect_fail=False):
        cmd = [OPENSTACK] + list(args) + (['-f', 'json'] if fmt else [])
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=120)
        if expect_fail:
            assert proc.returncode != 0, proc.stdout
            return proc.stderr
        assert proc.returncode == 0, 'stdout: %s\nstderr: %s' % (proc.stdout,
                                                                 proc.stderr)
        return json.loads(proc.stdout) if fmt and proc.stdout.strip() else None
    return run


def test_node_and_allocation_workflow(osc):
    node = osc('baremetal', 'node', 'create', '--driver', 'fake-hardware',
               '--resource-class', 'gold', '--name', 'cli-1')
    assert node['provision_state'] == 'enroll'
    osc('baremetal', 'node', 'manage', 'cli-1', fmt=False)
    osc('baremetal', 'node', 'provide', 'cli-1', fmt=False)
    osc('baremetal', 'node', 'add', 'trait', 'cli-1', 'CUSTOM_T', fmt=False)
    listed = osc('baremetal', 'node', 'list')
    assert [(n['name'], n['provision_state'], n['power_state'])
            for n in listed] == [('cli-1', 'available', 'power off')]

    alloc = osc('baremetal', 'allocation', 'create', '--resource-class', 'gold',
                '--trait', 'CUSTOM_T', '--name', 'a-1', '--wait', '0')
    assert (alloc['state'], alloc['node_uuid']) == ('active', node['uuid'])
    assert alloc['traits'] == ['CUSTOM_T']
    assert [a['uuid'] for a in osc('baremetal', 'allocation', 'list')] == [alloc['uuid']]
    assert osc('baremetal', 'allocation', 'show', 'a-1')['uuid'] == alloc['uuid']
    shown = osc('baremetal', 'node', 'show', 'cli-1')
    assert shown['instance_uuid'] == alloc['uuid'] == shown['allocation_uuid']

    err = osc('baremetal', 'allocation', 'create', '--resource-class', 'gold',
              '--wait', '0', expect_fail=True)
    assert 'no available nodes match the resource class gold' in err

    osc('baremetal', 'allocation', 'delete', 'a-1', fmt=False)
    assert osc('baremetal', 'node', 'show', 'cli-1')['instance_uuid'] is None
    assert [a['state'] for a in osc('baremetal', 'allocation', 'list')] == ['error']
