"""Check strings the endpoint rules are built from: Ironic's secure-RBAC defaults.

A system-scoped token (``system_scope:all``) works on everything as its role
allows; a project-scoped token works on the nodes its project owns or leases
(``node.owner`` / ``node.lessee`` in the target) and on the allocations its
project owns (``allocation.owner``).  Every rule has ``scope_types`` system and
project, so a domain-scoped token fails every check (api.baremetal.policy also
refuses a token without any scope before a rule is looked at).
"""

from oslo_policy import policy as oslo_policy

SCOPES = ['system', 'project']

# the service role in the service project: its name is put into the target as
# config.service_project_name (common.policies.targets) only with [DEFAULT]
# rbac_service_role_elevated_access, as Ironic does; without it this never matches
SERVICE_ROLE = 'rule:service_role'

SYSTEM_ADMIN = 'role:admin and system_scope:all'
SYSTEM_MEMBER = '(role:member and system_scope:all) or ' + SERVICE_ROLE
SYSTEM_READER = ('(role:reader and system_scope:all) or '
                 '(role:service and system_scope:all) or ' + SERVICE_ROLE)
SYSTEM_SERVICE = 'role:service and system_scope:all'

_OWNER = 'project_id:%(node.owner)s'
_LESSEE = 'project_id:%(node.lessee)s'
PROJECT_MEMBER = 'role:member and (%s or %s)' % (_OWNER, _LESSEE)
PROJECT_READER = 'role:reader and (%s or %s)' % (_OWNER, _LESSEE)
PROJECT_SERVICE = 'role:service and ' + _OWNER
PROJECT_ADMIN = 'role:admin and ' + _OWNER
OWNER_ADMIN = 'role:admin and ' + _OWNER
OWNER_MANAGER = 'role:manager and ' + _OWNER
OWNER_MEMBER = 'role:member and ' + _OWNER
OWNER_READER = 'role:reader and ' + _OWNER
LESSEE_ADMIN = 'role:admin and ' + _LESSEE
LESSEE_MANAGER = 'role:manager and ' + _LESSEE

ALLOCATION_OWNER_MEMBER = 'role:member and project_id:%(allocation.owner)s'
ALLOCATION_OWNER_READER = 'role:reader and project_id:%(allocation.owner)s'


def _any(*checks):
    return ' or '.join('(%s)' % c for c in checks)


SYSTEM_OR_PROJECT_MEMBER = _any(SYSTEM_MEMBER, PROJECT_MEMBER, SYSTEM_SERVICE)
SYSTEM_OR_PROJECT_READER = _any(SYSTEM_READER, PROJECT_READER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, LESSEE_ADMIN, LESSEE_MANAGER,
    PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_ADMIN = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_ADMIN,
                                    OWNER_MANAGER, PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_MEMBER = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER,
                                     PROJECT_SERVICE)
SYSTEM_OR_OWNER_READER = _any(SYSTEM_READER, SYSTEM_SERVICE, OWNER_READER,
                              PROJECT_SERVICE)

ALLOCATION_MEMBER = _any(SYSTEM_MEMBER, ALLOCATION_OWNER_MEMBER)
ALLOCATION_READER = _any(SYSTEM_READER, ALLOCATION_OWNER_READER)
ALLOCATION_CREATOR = _any(SYSTEM_MEMBER, 'role:member')
API_READER = '(role:reader) or (role:service)'

rules = [
    oslo_policy.RuleDefault(
        'service_role', 'role:service and project_name:%(config.service_project_name)s',
        description='The service role in the service project (nova-compute, '
                    'ironic-inspector): system-member access to every project\'s '
                    'nodes and allocations. Matches only when [DEFAULT] '
                    'rbac_service_role_elevated_access is true (default false); the '
                    'project is [DEFAULT] rbac_service_project_name. Never matches '
                    'an RPC context signed with an [rpc] service_keys key.'),
]
