"""metalsmith, unmodified, against a real berth (issue 50).

metalsmith (pinned with its openstacksdk by ``metalsmith-pins.txt``) is the
bare-metal client that reserves nodes through Ironic's allocation API.
:mod:`tests.compat.metalsmith_driver` runs in the suite's venv against an
embedded berth with ``noauth2`` (the cloud ``auth_type: none``): its Python
API (``Provisioner(cloud_region=...)`` from openstacksdk's cloud config) and
its CLI (``metalsmith list``, ``metalsmith show``).  Each check's outcome is
judged like a community suite's: a failure fails the test unless
:data:`EXPECTED_FAILURES` (reviewed: what berth does not offer) names it.

What metalsmith needs besides berth, and so is not driven here: Neutron
(``provision_node`` with ``nics``, and the IP addresses ``list``/``show``
print for a deployed instance, and ``-f json``'s ``ip_addresses``, read
Neutron's ports) and Glance (a ``GlanceImage`` source).
"""

import json
import os
import subprocess
import time

import pytest

from tests.compat import stacks, stestr_suite, suite_venv

pytestmark = [pytest.mark.compat, pytest.mark.integration]

HERE = os.path.dirname(os.path.abspath(__file__))
PINS = os.path.join(HERE, 'metalsmith-pins.txt')
DRIVER = os.path.join(HERE, 'metalsmith_driver.py')

# metalsmith steps berth cannot take, each with the reason: reviewed, permanent.
EXPECTED_FAILURES = {
    'provision_node':
        'validate: provision_node calls GET /v1/nodes/{n}/validate before the "active" '
        'verb; berth runs no driver interfaces, so it is not offered (404 not supported '
        'by berth); metalsmith cleans up (the allocation it made is deleted)',
    'cli_list_deployed':
        'Neutron ports: a deployed instance\'s row lists its IP addresses from the '
        'network service\'s ports; this cloud has no Neutron, so the call lands on berth '
        '(/v1/ports, not supported by berth); with Neutron in the catalog it is not '
        'berth\'s call at all',
}
# what the expected failure must say (so that it fails for its reason, not another)
EXPECTED_MESSAGES = {
    'provision_node': 'not supported by berth: /v1/nodes/',
    'cli_list_deployed': 'not supported by berth: /v1/ports',
}

# what openstacksdk 4.22 (metalsmith sends no version of its own) asks for:
# each resource's own maximum, below berth's 1.115 (a node's traits path, only
# the setup's add_node_trait, has a fixed version of its own)
SDK_MAXIMA = {'/v1/nodes': '1.109', '/v1/allocations': '1.60'}
FIXED = ('/traits/',)


@pytest.fixture(scope='module')
def venv():
    return suite_venv.require('metalsmith', PINS)


def test_metalsmith(venv, tmp_path_factory):
    workdir = tmp_path_factory.mktemp('metalsmith')
    stack = stacks.noauth_berth(tmp_path_factory.getbasetemp(), workdir / 'state')
    try:
        clouds = str(workdir / 'clouds.yaml')
        with open(clouds, 'w') as f:
            json.dump({'clouds': {'berth': {
                'auth_type': 'none', 'auth': {'endpoint': stack.baremetal_url},
                'region_name': 'RegionOne'}}}, f)
        env = stestr_suite.suite_env(OS_CLIENT_CONFIG_FILE=clouds)
        started = time.monotonic()
        proc = subprocess.run([os.path.join(venv, 'bin', 'python'), DRIVER], env=env,
                              cwd=str(workdir), capture_output=True, text=True, timeout=300)
        took = time.monotonic() - started
    finally:
        stack.stop()
    assert proc.returncode == 0, 'driver: rc %d\n%s\n%s' % (
        proc.returncode, proc.stdout, proc.stderr[-5000:])
    report = json.loads(proc.stdout)
    results = {name: tuple(outcome) for name, outcome in report['results'].items()}
    versions = report['microversions']
    print('metalsmith ran in %.0f s; berth advertises %s; metalsmith sent %s'
          % (took, versions['advertised'], versions['sent']))
    stestr_suite.judge('metalsmith', results, EXPECTED_FAILURES, {})
    for name, message in EXPECTED_MESSAGES.items():
        assert message in results[name][1], results[name][1]
    assert versions['advertised'] == '1.115'
    # negotiated: the highest both sides know, one version per resource
    for collection, version in SDK_MAXIMA.items():
        sent = {v for call, vs in versions['sent'].items() for v in vs
                if call.split(' ')[1].startswith(collection) and not any(
                    f in call for f in FIXED)}
        assert sent == {version}, (collection, versions['sent'])
