"""Body of POST /claims (berth extension: schedule-and-claim), at every microversion.

The resource request is the language of GET /allocation_candidates as JSON:
``resources`` is an object of class: amount, ``required`` and ``member_of``
are lists of the values the query string would repeat (``"!TRAIT"``,
``"in:A,B"``), granular groups sit under ``groups`` keyed by suffix.
"""

from api.placement.schemas import allocation_candidate as ac_schema
from api.placement.schemas import common

_STRING_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_TERMS = {'type': 'array', 'items': {'type': 'string', 'minLength': 1},
          'maxItems': common.MAX_TERMS}
RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {common.RC_NAME['pattern']: {
        'type': 'integer', 'minimum': 1, 'maximum': common.MAX_INT}},
    'additionalProperties': False,
}
_GROUP = {
    'resources': RESOURCES,
    'required': _TERMS,
    'member_of': _TERMS,
    'in_tree': common.UUID,
}
GROUP = {'type': 'object', 'properties': _GROUP, 'additionalProperties': False}

# exactly one of these names the consumers; the handler checks it (not a
# ``oneOf``, whose jsonschema message names neither field) and answers 400
# with errors.CLAIM_CONSUMERS
ONE_OF = ('consumer_uuid', 'consumer_uuids')

POST_CLAIMS = {
    'type': 'object',
    'properties': dict(_GROUP, **{
        'consumer_uuid': common.UUID,
        'consumer_uuids': {'type': 'array', 'minItems': 1, 'maxItems': 1000,
                           'uniqueItems': True, 'items': common.UUID},
        'project_id': _STRING_ID,
        'user_id': _STRING_ID,
        'consumer_type': {'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                          'minLength': 1, 'maxLength': 255},
        'groups': {'type': 'object',
                   'propertyNames': {'pattern': '^%s$' % ac_schema.STRING_SUFFIX},
                   'additionalProperties': GROUP},
        'group_policy': {'type': 'string', 'enum': ['none', 'isolate']},
        'root_required': _TERMS,
        'same_subtree': {'type': 'array', 'maxItems': common.MAX_TERMS, 'items': {
            'type': 'array', 'minItems': 1, 'maxItems': common.MAX_TERMS,
            'items': {'type': 'string', 'pattern': '^%s$' % ac_schema.STRING_SUFFIX}}},
        'weigher': {'type': 'string', 'minLength': 1, 'maxLength': 64},
        'count': {'type': 'integer', 'minimum': 1, 'maximum': 1000},
        'distinct_roots': {'type': 'boolean'},
    }),
    'required': ['project_id', 'user_id'],
    'additionalProperties': False,
}
