"""The version documents at / and /v1 (no authentication needed)."""

from api.baremetal import response
from api.baremetal import version as api_version
from api.common import links as common_links


def _version(req):
    return {'id': 'v1', 'status': 'CURRENT',
            'min_version': str(api_version.MIN_VERSION),
            'version': str(api_version.MAX_VERSION),
            'links': [{'href': '%s/v1/' % common_links.base_url(req),
                       'rel': 'self'}]}


def root(req):
    v1 = _version(req)
    return response.send_json({
        'name': 'OpenStack Ironic API',
        'description': 'Ironic-compatible bare metal API served by berth: nodes '
                       'and node allocations.',
        'default_version': v1, 'versions': [v1]})


def v1(req):
    base = common_links.base_url(req)

    def res(name):
        return [{'href': '%s/v1/%s/' % (base, name), 'rel': 'self'},
                {'href': '%s/%s/' % (base, name), 'rel': 'bookmark'}]

    body = {'id': 'v1',
            'links': [{'href': '%s/v1/' % base, 'rel': 'self'}],
            'media_types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.ironic.v1+json'}],
            'nodes': res('nodes'), 'chassis': res('chassis'),
            'drivers': res('drivers'),
            'version': _version(req)}
    if req.version.matches(api_version.ALLOCATIONS):
        body['allocations'] = res('allocations')
    if req.version.matches('1.49'):
        body['conductors'] = res('conductors')
    if req.version.matches(api_version.SHARDS):
        body['shards'] = res('shards')
    return response.send_json(body)
