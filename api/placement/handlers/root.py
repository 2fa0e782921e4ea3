"""GET /: the version document (no authentication, no policy)."""

from api.placement import microversion, response, router


@router.endpoint()
def home(req):
    body = {'versions': [{
        'id': 'v%s' % microversion.MIN_VERSION,
        'min_version': str(microversion.MIN_VERSION),
        'max_version': str(microversion.MAX_VERSION),
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }]}
    return response.send_json(req, body)
