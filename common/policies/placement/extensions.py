"""Rules of berth's own extensions on the placement port (POST /claims, /quotas, /capacity)."""

from oslo_policy import policy

from common.policies.placement import base

CLAIMS_CREATE = 'placement:claims:create'
QUOTAS_SHOW = 'placement:quotas:show'
QUOTAS_UPDATE = 'placement:quotas:update'
QUOTAS_DELETE = 'placement:quotas:delete'
STATUS_SHOW = 'placement:status:show'
CAPACITY_SHOW = 'placement:capacity:show'


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(name, check, description,
                                        [{'method': method, 'path': path}],
                                        scope_types=['project'])


rules = [
    _rule(CLAIMS_CREATE, base.ADMIN_OR_SERVICE,
          'Schedule and claim resources in one call (berth extension).',
          'POST', '/claims'),
    _rule(QUOTAS_SHOW, base.ADMIN,
          'Show the quota limits of a project or user with their usage '
          '(berth extension).', 'GET', '/quotas/{project_id}'),
    _rule(QUOTAS_UPDATE, base.ADMIN,
          'Set the quota limits of a project or user (berth extension).',
          'PUT', '/quotas/{project_id}'),
    _rule(QUOTAS_DELETE, base.ADMIN,
          'Remove the quota limits of a project or user (berth extension).',
          'DELETE', '/quotas/{project_id}'),
    _rule(CAPACITY_SHOW, base.ADMIN,
          'Count how many more consumers of a resource request fit, cloud-wide '
          'and per aggregate (berth extension).', 'GET', '/capacity'),
    policy.DocumentedRuleDefault(
        STATUS_SHOW, base.ADMIN,
        'Show the status page and its data: conductors, node allocations, '
        'capacity (berth extension).',
        [{'method': 'GET', 'path': '/status'}, {'method': 'GET', 'path': '/status.json'}],
        scope_types=['project']),
]
