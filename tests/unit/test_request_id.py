"""api.common.middleware.RequestId answers as oslo.middleware's RequestId does."""

import sys

from oslo_middleware import request_id as o_request_id
import pytest
import webob
import webob.exc

from api.common import middleware

GLOBAL = 'req-12345678-1234-1234-1234-123456789abc'


def _run(wrapper_cls, app, method='GET', headers=None):
    req = webob.Request.blank('/x', method=method, headers=headers or {})
    resp = req.get_response(wrapper_cls(app))
    return req.environ, resp


def _both(app, **kwargs):
    """(environ, response) through berth's and through oslo's middleware."""
    return _run(middleware.RequestId, app, **kwargs), _run(o_request_id.RequestId,
                                                           app, **kwargs)


def _plain_app(headers):
    def app(environ, start_response):
        start_response('200 OK', list(headers))
        return [b'body']
    return app


@pytest.mark.parametrize('headers', [
    [('Content-Type', 'text/plain')],
    [('x-openstack-request-id', 'req-own')],
    [('X-OpenStack-Request-ID', 'req-own')],
])
def test_the_id_is_added_once(headers):
    (env, resp), (_oenv, oresp) = _both(_plain_app(headers))
    ids = resp.headers.getall('x-openstack-request-id')
    assert len(ids) == 1 == len(oresp.headers.getall('x-openstack-request-id'))
    if any(n.lower() == 'x-openstack-request-id' for n, _ in headers):
        assert ids == ['req-own']
    else:
        assert ids == [env['openstack.request_id']]
        assert o_request_id.re.match(o_request_id.ID_FORMAT, ids[0])
    assert resp.body == oresp.body == b'body'
    assert resp.status == oresp.status


@pytest.mark.parametrize('inbound, kept', [
    (GLOBAL, True), ('req-nope', False), ('', False), (GLOBAL + 'x', False)])
def test_the_global_id_only_when_well_formed(inbound, kept):
    (env, _), (oenv, _) = _both(_plain_app([]),
                                headers={'X-OpenStack-Request-ID': inbound})
    assert ('openstack.global_request_id' in env) is kept
    assert ('openstack.global_request_id' in oenv) is kept
    if kept:
        assert env['openstack.global_request_id'] == GLOBAL
    assert env['openstack.request_id'] != inbound


def test_a_webob_http_exception_is_its_own_answer_without_the_id():
    def app(environ, start_response):
        raise webob.exc.HTTPForbidden()
    (_, resp), (_, oresp) = _both(app)
    assert resp.status_int == oresp.status_int == 403
    assert 'x-openstack-request-id' not in resp.headers
    assert 'x-openstack-request-id' not in oresp.headers


def test_start_response_with_exc_info_reraises():
    def app(environ, start_response):
        try:
            raise KeyError('boom')
        except KeyError:
            start_response('500 Internal Server Error', [], sys.exc_info())
        return [b'']
    for cls in (middleware.RequestId, o_request_id.RequestId):
        with pytest.raises(KeyError):
            _run(cls, app)


def test_head_answers_alike():
    def app(environ, start_response):
        return webob.Response(body=b'hello', content_type='text/plain')(
            environ, start_response)
    (_, resp), (_, oresp) = _both(app, method='HEAD')
    assert resp.body == oresp.body == b''
    assert resp.headers['content-length'] == oresp.headers['content-length'] == '5'
