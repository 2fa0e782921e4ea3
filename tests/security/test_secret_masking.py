"""BMC secrets never leave berth: masked in every node answer, absent from SQL errors."""

import logging

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

PW = 'IpmiS3cret-pw-7731'
INFO = {'ipmi_address': '10.0.0.7', 'ipmi_username': 'admin', 'ipmi_password': PW,
        'redfish_auth_token': PW, 'ssh_private_key': PW, 'my_secret': PW,
        'nested': {'api_key': PW, 'port': 623}}
MASKED = {'ipmi_address': '10.0.0.7', 'ipmi_username': 'admin',
          'ipmi_password': '******', 'redfish_auth_token': '******',
          'ssh_private_key': '******', 'my_secret': '******',
          'nested': {'api_key': '******', 'port': 623}}


@pytest.fixture
def node(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'bmc',
                                      'driver_info': INFO,
                                      'instance_info': {'configdrive': PW,
                                                        'image_source': 'img'}})
    assert resp.status_code == 201, resp.text
    assert PW not in resp.text
    assert resp.json()['driver_info'] == MASKED
    return resp.json()


def test_every_node_answer_masks_secrets(bm, node):
    answers = [bm.get('/v1/nodes/bmc'), bm.get('/v1/nodes/detail'),
               bm.get('/v1/nodes?detail=True'),
               bm.get('/v1/nodes/bmc?fields=driver_info,instance_info'),
               bm.patch('/v1/nodes/bmc', json=[{'op': 'add', 'path': '/extra/x',
                                                'value': 1}])]
    for resp in answers:
        assert resp.status_code == 200, resp.text
        assert PW not in resp.text
    assert answers[0].json()['driver_info'] == MASKED
    assert answers[0].json()['instance_info'] == {'configdrive': '******',
                                                  'image_source': 'img'}
    assert answers[1].json()['nodes'][0]['driver_info'] == MASKED


def test_the_mask_is_never_stored(bm, ctx, node):
    """A PATCH of another key keeps the real password (the mask is never stored)."""
    resp = bm.patch('/v1/nodes/bmc', json=[{'op': 'replace',
                                            'path': '/driver_info/ipmi_address',
                                            'value': '10.0.0.8'}])
    assert resp.status_code == 200, resp.text
    assert resp.json()['driver_info']['ipmi_password'] == '******'
    from objects.baremetal import node as node_obj
    stored = node_obj.get(ctx, 'bmc').driver_info
    assert stored['ipmi_password'] == PW and stored['ipmi_address'] == '10.0.0.8'


def test_failing_statement_does_not_log_its_parameters(berth, ctx, caplog):
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger('berth.test')
    # the driver's error (no such column): oslo.db wraps it in DBError on the
    # server engines; SQLite's stays SQLAlchemy's DBAPIError
    with pytest.raises((db_exc.DBError, sa.exc.DBAPIError)) as info:
        with berth.db.writer(ctx) as session:
            session.execute(sa.text('INSERT INTO nodes (no_such_column) VALUES (:pw)'),
                            {'pw': PW})
    log.exception('statement failed: %s', info.value)
    assert 'no_such_column' in caplog.text      # the error itself is logged
    assert PW not in caplog.text and PW not in str(info.value)
    assert 'hidden' in str(info.value) or ':pw' in str(info.value) or '?' in str(
        info.value)


def test_mask_keeps_plain_values():
    from api.baremetal import response
    assert response.mask_secrets({'deploy_kernel': 'k', 'a': {'b': 1}}) == {
        'deploy_kernel': 'k', 'a': {'b': 1}}
    assert response.mask_secrets(None) is None
