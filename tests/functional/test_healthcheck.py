"""GET /healthcheck on both ports: oslo.middleware's healthcheck, no token needed."""

import pytest
import requests
import webob

from api.baremetal import app as baremetal_app
from common.conf import builder
from tests import services
from tests.security import fake_keystone


@pytest.mark.parametrize('port', ['placement_url', 'baremetal_url'])
def test_healthcheck_answers_without_a_token(berth, port):
    resp = requests.get(getattr(berth, port) + '/healthcheck', timeout=30)
    assert resp.status_code == 200, resp.text
    # the same path below it is not the healthcheck: the API answers (401/404)
    assert requests.get(getattr(berth, port) + '/healthcheck/x',
                        timeout=30).status_code in (401, 404)


def test_healthcheck_under_keystone_needs_no_token(berth, tmp_path):
    """keystonemiddleware sits inside: a load balancer's probe has no token."""
    services.import_or_unavailable('keystonemiddleware.auth_token')
    identity = fake_keystone.FakeKeystone().start()
    try:
        path = tmp_path / 'berth.conf'
        path.write_text(fake_keystone.authtoken_config(identity.url))
        conf = builder.build(config_files=[str(path)], overrides={
            'state_path': str(tmp_path / 'state'), 'api.auth_strategy': 'keystone'})
        app = baremetal_app.loadapp(conf, berth.db, berth.conductor_api)
        resp = webob.Request.blank('/healthcheck').get_response(app)
        assert resp.status_int == 200
        assert webob.Request.blank('/v1/nodes').get_response(app).status_int == 401
    finally:
        identity.stop()


def test_disable_by_file_takes_the_host_out_of_the_pool(berth, tmp_path):
    flag = tmp_path / 'disabled'
    path = tmp_path / 'berth.conf'
    path.write_text('[healthcheck]\nbackends = disable_by_file\n'
                    'disable_by_file_path = %s\n' % flag)
    conf = builder.build(config_files=[str(path)], overrides={
        'state_path': str(tmp_path / 'state'), 'api.auth_strategy': 'noauth2'})
    app = baremetal_app.loadapp(conf, berth.db, berth.conductor_api)
    assert webob.Request.blank('/healthcheck').get_response(app).status_int == 200
    flag.write_text('maintenance')
    resp = webob.Request.blank('/healthcheck').get_response(app)
    assert resp.status_int == 503
