"""Query string of GET /usages, by microversion (see schemas.allocation.for_version)."""

import copy
from typing import Any

_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

_GET_1_9: dict[str, Any] = {
    'type': 'object',
    'properties': {'project_id': _ID, 'user_id': _ID},
    'required': ['project_id'],
    'additionalProperties': False,
}

_GET_1_38 = copy.deepcopy(_GET_1_9)
_GET_1_38['properties']['consumer_type'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    # a type name, or the reserved (case-sensitive) 'all' and 'unknown'
    'pattern': '^([A-Z0-9_]+|all|unknown)$'}

GET_USAGES = [('1.9', _GET_1_9), ('1.38', _GET_1_38)]
