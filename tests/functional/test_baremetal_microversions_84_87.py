"""Ironic API 1.84 onwards on /v1: the inspection callback (1.84, out of scope).

doc/source/ironic-microversions.md lists every version with its decision.
"""

from tests.functional import baremetal_helpers as h

MAX = '1.84'
UNSUPPORTED = 'not supported by berth: %s (see doc/source/api/baremetal.md)'


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


def test_the_maximum_is_1_84(bm):
    resp = bm.get('/v1')
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == MAX
    assert resp.json()['version']['version'] == MAX
    assert bm.get('/v1/nodes', headers=_v('latest')).headers[
        'X-OpenStack-Ironic-API-Version'] == MAX
    assert bm.get('/v1/nodes', headers=_v(MAX)).status_code == 200
    nxt = '1.%d' % (int(MAX.split('.')[1]) + 1)
    resp = bm.get('/v1/nodes', headers=_v(nxt))
    assert resp.status_code == 406
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == MAX


# 1.84 /v1/continue_inspection: the ramdisk's inspection callback, not served

def test_continue_inspection_is_not_served_nor_linked_at_1_84(bm):
    # Ironic's /v1 links it from 1.84; berth serves no inspection: no link
    assert 'continue_inspection' not in bm.get('/v1', headers=_v('1.84')).json()
    for version in ('1.1', '1.83', '1.84'):
        resp = bm.post('/v1/continue_inspection', headers=_v(version),
                       json={'inventory': {}})
        assert (resp.status_code, h.fault(resp)) == (
            404, UNSUPPORTED % '/v1/continue_inspection')
    resp = bm.post('/v1/continue_inspection', headers=_v('1.84'), data='not json')
    assert resp.status_code == 404
