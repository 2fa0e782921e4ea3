"""A database that cannot be reached is a 503 (retry later), never a 500.

Found by the chaos suite (tests/chaos, PostgreSQL restart): every request
that touched the database answered 500 "unexpected error" while it was
away, in both APIs, and so did every call whose conductor met the same
error.  The database here is a PostgreSQL URL on a loopback port nobody
listens on (connection refused at once).
"""

import oslo_messaging as messaging
import pytest
import webob

from api.baremetal import app as baremetal_app
from api.placement import app as placement_app
from common import exception, rpc
from db import api as db_api
from tests import fixtures, services


@pytest.fixture
def away(tmp_path):
    db = db_api.Database('postgresql+psycopg2://berth@127.0.0.1:%d/berth'
                         % services.free_port(), max_retries=0)
    yield fixtures.make_conf(tmp_path), db
    db.dispose()


def test_placement_answers_503_in_its_error_format(away):
    conf, db = away
    app = placement_app.loadapp(conf, db, conductor=None)
    req = webob.Request.blank('/resource_providers', headers={
        'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement 1.28'})
    resp = req.get_response(app)
    assert resp.status_int == 503, resp.text
    error = resp.json['errors'][0]
    assert error['code'] == 'berth.service_unavailable'
    assert 'database cannot be reached' in error['detail']


def test_baremetal_answers_503(away):
    conf, db = away
    app = baremetal_app.loadapp(conf, db, conductor=None)
    resp = webob.Request.blank('/v1/nodes', headers={
        'X-OpenStack-Ironic-API-Version': '1.60'}).get_response(app)
    assert resp.status_int == 503, resp.text
    assert 'database cannot be reached' in resp.json['error_message']


def test_a_conductor_that_cannot_reach_the_database_is_503():
    with pytest.raises(exception.ServiceUnavailable, match='database cannot be reached'):
        with rpc.translate_errors('c0', 'claim_resources'):
            raise messaging.RemoteError('DBConnectionError', 'connection refused')


def test_other_remote_errors_stay_errors():
    with pytest.raises(messaging.RemoteError):
        with rpc.translate_errors('c0', 'claim_resources'):
            raise messaging.RemoteError('ValueError', 'bad')
