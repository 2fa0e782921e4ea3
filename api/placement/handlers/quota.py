"""/quotas/{project_id} (berth extension): quota limits beside their usage.

``?user_id=`` addresses one user's limits inside the project.  Usage is
counted from allocations and consumers (as GET /usages does), never stored.
The limits come from ``[quota] limits_source``: berth's table (written by
PUT/DELETE here) or Keystone unified limits (read only here: PUT/DELETE
answer 409); the body's ``source`` says which, and with Keystone a
``views`` member reports ``cores`` (VCPU + PCPU) as nova does.

``enforced`` says whether the limits bite (``[quota] enforce``): a limit set
while they do not is stored, and the answer says so in a ``warning`` member
and a ``Warning`` header, so that nobody believes a limit protects them when
no write is checked against it.
"""

from api.placement import fault, policy, response, router, validation
from api.placement.schemas import quota as schema
from common import exception
from common.policies.placement import extensions as rules
from objects.placement import quota as quota_obj
from objects.placement import quota_keystone


def _scope(req):
    project_id = req.urlvars['project_id']
    if len(project_id) > schema.MAX_PROJECT_ID:
        # the column's width: PostgreSQL refuses a longer value (a 500)
        raise fault.BadRequest('Invalid project_id in the path: longer than %d '
                               'characters' % schema.MAX_PROJECT_ID)
    params = validation.validate_query(req, schema.QUERY)
    return project_id, params.get('user_id')


def _body(req, project_id, user_id):
    body = {'project_id': project_id, 'user_id': user_id}
    source = quota_keystone.source_for(req.conf)
    views = () if source is quota_obj.TABLE else ('cores',)
    body.update(quota_obj.show(req.context, project_id, user_id, source=source,
                               views=views))
    body['enforced'] = req.conf.quota.enforce
    return body


def _writable(req):
    if req.conf.quota.limits_source == 'keystone':
        raise exception.QuotaLimitsReadOnly()


@router.endpoint(json_reply=True)
def get_quota(req):
    policy.authorize(req, rules.QUOTAS_SHOW)
    project_id, user_id = _scope(req)
    return response.send_json(req, _body(req, project_id, user_id), cache=False)


@router.endpoint(json_body=True, json_reply=True)
def put_quota(req):
    policy.authorize(req, rules.QUOTAS_UPDATE)
    project_id, user_id = _scope(req)
    _writable(req)
    data = validation.extract_json(req, schema.PUT_QUOTA)
    quota_obj.set_limits(req.context, project_id,
                         quota_obj.Limits(resources=data.get('resources', {}),
                                          consumers=data.get('consumers', {})),
                         user_id)
    body = _body(req, project_id, user_id)
    if body['enforced']:
        return response.send_json(req, body, cache=False)
    body['warning'] = quota_obj.NOT_ENFORCED
    resp = response.send_json(req, body, cache=False)
    resp.headers['Warning'] = '299 berth "%s"' % quota_obj.NOT_ENFORCED
    return resp


@router.endpoint()
def delete_quota(req):
    policy.authorize(req, rules.QUOTAS_DELETE)
    project_id, user_id = _scope(req)
    _writable(req)
    quota_obj.delete_limits(req.context, project_id, user_id)
    return response.no_content()
