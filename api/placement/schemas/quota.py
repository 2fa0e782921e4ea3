"""Body and query of /quotas/{project_id} (berth extension: quota limits)."""

from api.placement.schemas import common

_LIMITS = {'type': 'object',
           'additionalProperties': {'type': 'integer', 'minimum': 0,
                                    'maximum': common.MAX_INT}}

PUT_QUOTA = {
    'type': 'object',
    'properties': {
        'resources': dict(_LIMITS, propertyNames=common.RC_NAME),
        'consumers': dict(_LIMITS, propertyNames={'pattern': '^[A-Z0-9_]+$',
                                                  'maxLength': 255}),
    },
    'additionalProperties': False,
}

# the widest project id (and user id) the quota table holds
MAX_PROJECT_ID = 255

QUERY = {
    'type': 'object',
    'properties': {'user_id': {'type': 'string', 'minLength': 1, 'maxLength': MAX_PROJECT_ID}},
    'additionalProperties': False,
}
