"""Another service's process, importing only the published RPC client, over RabbitMQ.

An embedded berth (API and conductors in this process) on real RabbitMQ; a
separate Python process that imports ``conductor.rpcapi`` and ``common``
only (never the server side, the API or ``db``) claims and deletes
Placement allocations over the bus, as doc/source/rpc.md shows, and gets the same
answers as the REST API: the claim is visible over REST, an over-capacity
claim is refused with the error class the REST API turns into its 409.
A context without the role is refused (``Forbidden``, typed) and nothing is
written: the conductor checks the REST API's policy on the message's context.
"""

import json
import subprocess
import sys
import uuid as uuidlib

import pytest

from common import context as berth_context
from tests import fixtures, services
from tests.functional import alloc_helpers
from tests.integration import conftest

pytestmark = conftest.MARKS

CLIENT = r'''
import json, sys
from common import context, exception
from common.conf import builder
from conductor import rpcapi
from conductor.rpcapi import payloads

conf = builder.build(config_files=[sys.argv[1]])
rp, consumer, project, user = sys.argv[2:6]
client = rpcapi.APIConductorClient(conf)
ctx = context.RequestContext(user_id=user, project_id=project, roles=['admin'])
reader = context.RequestContext(user_id=user, project_id=project, roles=['reader'])
out = {}


def refused(call):
    try:
        call()
    except exception.Forbidden as exc:
        return [type(exc).__mro__[1].__name__, exc.message]
    return 'not refused'


try:
    out['refused_claim'] = refused(lambda: client.claim_resources(reader, [
        payloads.ClaimConsumer(consumer + '-r', {rp: {'VCPU': 1}}, project, user)]))
    client.claim_resources(ctx, [payloads.ClaimConsumer(consumer, {rp: {'VCPU': 2}},
                                                        project, user)])
    out['claim'] = 'ok'
    try:
        client.claim_resources(ctx, [payloads.ClaimConsumer(
            consumer + '-x', {rp: {'VCPU': 100}}, project, user)])
        out['over'] = 'ok'
    except exception.BerthException as exc:
        # re-raised as a subclass of the conductor's class (``<name>_Remote``)
        out['over'] = next(c.__name__ for c in type(exc).__mro__
                           if c.__module__ == 'common.exception')
    out['refused_delete'] = refused(lambda: client.delete_allocations(reader, consumer))
    out['loaded'] = sorted(m for m in sys.modules
                           if m.split('.')[0] in ('api', 'db', 'objects')
                           or m.startswith(('conductor.manager', 'conductor.periodic')))
    input()          # the test checks REST here, then lets us delete
    client.delete_allocations(ctx, consumer)
    out['delete'] = 'ok'
finally:
    client.stop()
print(json.dumps(out))
'''


@pytest.fixture
def stack(rabbitmq, tmp_path_factory, tmp_path):
    conf_file = tmp_path / 'berth.conf'
    conf_file.write_text('[DEFAULT]\ntransport_url = %s\n'
                         '[coordination]\nbackend_url = file://%s\n'
                         % (rabbitmq.url, tmp_path / 'coordination') + services.RPC_CONF)
    conf = fixtures.make_conf(tmp_path / 'state', config_files=[conf_file])
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    s = fixtures.start_embedded(conf)
    s.conf_file = conf_file
    yield s
    s.stop()


def test_published_client_claims_and_deletes_like_rest(stack):
    client = fixtures.PlacementClient(stack.placement_url, version='1.38')
    try:
        ctx = berth_context.admin_context(stack.db)
        rp = alloc_helpers.provider(client, ctx, {'VCPU': {'total': 8}})
        consumer, project, user = (str(uuidlib.uuid4()) for _ in range(3))
        proc = subprocess.Popen(
            [sys.executable, '-c', CLIENT, str(stack.conf_file), rp, consumer,
             project, user], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, cwd=str(conftest_root()))
        # the claim is done once the process waits on its stdin; REST shows it
        # (the deadline is a liveness bound, not a timing)
        usages = _wait_usage(client, rp, proc)
        assert usages == {'VCPU': 2}
        out, err = proc.communicate('\n', timeout=120)
        assert proc.returncode == 0, err
        answer = json.loads(out.strip().splitlines()[-1])
        assert answer['claim'] == 'ok' and answer['delete'] == 'ok'
        assert answer['loaded'] == []
        # the reader's claim and delete were refused, typed, and changed nothing
        # (the usage above is the admin's claim alone, still there)
        assert answer['refused_claim'] == [
            'Forbidden', 'Policy does not allow placement:allocations:update to be '
                         'performed.']
        assert answer['refused_delete'] == [
            'Forbidden', 'Policy does not allow placement:allocations:delete to be '
                         'performed.']
        assert client.get('/allocations/%s-r' % consumer).json()['allocations'] == {}
        # REST refuses the same over-capacity claim with 409 (same error class)
        assert answer['over'] == 'InvalidAllocation'
        resp = alloc_helpers.put(client, str(uuidlib.uuid4()), {rp: {'VCPU': 100}},
                                 version='1.28')
        assert resp.status_code == 409, resp.text
        assert client.get('/resource_providers/%s/usages' % rp).json()[
            'usages'] == {'VCPU': 0}
        assert client.get('/allocations/%s' % consumer).json()['allocations'] == {}
    finally:
        client.close()


def conftest_root():
    import pathlib
    return pathlib.Path(__file__).resolve().parents[2]


def _wait_usage(client, rp, proc, deadline=120):
    import time
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail('client process ended early: %s' % proc.stderr.read())
        usages = client.get('/resource_providers/%s/usages' % rp).json()['usages']
        if usages.get('VCPU'):
            return usages
        time.sleep(0.1)
    pytest.fail('the claim never showed over REST')
