"""Base rules the endpoint rules refer to (Placement's names and defaults)."""

from oslo_policy import policy

_DEPRECATED_REASON = ('Placement moved to secure role-based access control; '
                      'set [oslo_policy] enforce_new_defaults to use the new rules.')


def _legacy_admin(name):
    return policy.DeprecatedRule(name, 'role:admin', deprecated_reason=_DEPRECATED_REASON,
                                 deprecated_since='W')


ADMIN = 'rule:admin_api'
SERVICE = 'rule:service_api'
ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
PROJECT_READER = 'rule:project_reader_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE = 'rule:admin_or_project_reader_or_service_api'

rules = [
    policy.RuleDefault('admin_api', 'role:admin',
                       description='Default rule for most placement APIs.',
                       scope_types=['project']),
    policy.RuleDefault('service_api', 'role:service',
                       description='Default rule for service-to-service APIs.',
                       deprecated_rule=_legacy_admin('service_api'),
                       scope_types=['project']),
    policy.RuleDefault('admin_or_service_api', 'role:admin or role:service',
                       description='Default rule for most placement APIs.',
                       deprecated_rule=_legacy_admin('admin_or_service_api'),
                       scope_types=['project']),
    policy.RuleDefault('project_reader_api',
                       'role:reader and project_id:%(project_id)s',
                       description='Default rule for project level reader APIs.',
                       deprecated_rule=_legacy_admin('project_reader_api'),
                       scope_types=['project']),
    policy.RuleDefault('admin_or_project_reader_or_service_api',
                       'role:admin or rule:project_reader_api or role:service',
                       description='Default rule for project level reader APIs.',
                       deprecated_rule=_legacy_admin(
                           'admin_or_project_reader_or_service_api'),
                       scope_types=['project']),
]
