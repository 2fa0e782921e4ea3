"""A connection lost in the middle of a request is a 503, and retrying the write is safe.

During a PostgreSQL failover a transaction can lose its connection after
the server committed it (the primary died while answering COMMIT): oslo.db
raises DBConnectionError.  The API answers 503 in Placement's JSON error
format (never a 500), and the client's retry of the same write does not
store it twice: it gets the answer for a write that exists.
"""

import uuid as uuidlib

from oslo_db import exception as db_exc
import pytest
import webob

from api.placement import app as placement_app
from objects import database
from objects.placement import resource_provider as rp_obj
from tests import fixtures

HEADERS = {'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement 1.28'}


@pytest.fixture
def app(tmp_path):
    conf = fixtures.make_conf(tmp_path)
    fixtures.fresh_database(tmp_path, conf)
    db = database.open_database(conf)
    yield placement_app.loadapp(conf, db, conductor=None)
    db.dispose()


def _post_provider(app, rp):
    req = webob.Request.blank('/resource_providers', method='POST', headers=HEADERS)
    req.json = {'name': 'rp-%s' % rp, 'uuid': rp}
    req.content_type = 'application/json'
    return req.get_response(app)


def test_lost_after_commit_is_503_and_the_retry_is_refused_not_doubled(app, monkeypatch):
    real_create = rp_obj.create

    def committed_then_lost(ctx, *args, **kwargs):
        real_create(ctx, *args, **kwargs)
        raise db_exc.DBConnectionError('server closed the connection unexpectedly')
    monkeypatch.setattr(rp_obj, 'create', committed_then_lost)
    rp = str(uuidlib.uuid4())
    resp = _post_provider(app, rp)
    assert resp.status_int == 503, resp.text
    error = resp.json['errors'][0]
    assert error['code'] == 'berth.service_unavailable'
    assert error['status'] == 503
    assert 'database cannot be reached' in error['detail']

    monkeypatch.setattr(rp_obj, 'create', real_create)      # the new primary answers
    retry = _post_provider(app, rp)
    assert retry.status_int == 409, retry.text
    listed = webob.Request.blank('/resource_providers', headers=HEADERS).get_response(app)
    assert [p['uuid'] for p in listed.json['resource_providers']] == [rp]


def test_lost_before_commit_is_503_and_the_retry_stores_it(app, monkeypatch):
    def lost(ctx, *args, **kwargs):
        raise db_exc.DBConnectionError('connection to server at "127.0.0.1" failed')
    real_create = rp_obj.create
    monkeypatch.setattr(rp_obj, 'create', lost)
    rp = str(uuidlib.uuid4())
    assert _post_provider(app, rp).status_int == 503
    monkeypatch.setattr(rp_obj, 'create', real_create)
    assert _post_provider(app, rp).status_int == 200
