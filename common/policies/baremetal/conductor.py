"""The rule of /v1/conductors: Ironic's name, default and scope types."""

from oslo_policy import policy as oslo_policy

from common.policies.baremetal import base

CONDUCTOR_GET = 'baremetal:conductor:get'

rules = [
    oslo_policy.DocumentedRuleDefault(
        name=CONDUCTOR_GET, check_str=base.SYSTEM_READER,
        description='Retrieve Conductor records', scope_types=base.SCOPES,
        operations=[{'method': 'GET', 'path': '/v1/conductors'},
                    {'method': 'GET', 'path': '/v1/conductors/{hostname}'}]),
]
