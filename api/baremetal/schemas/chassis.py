"""Bodies and query parameters of /v1/chassis."""

CREATE_SCHEMA = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'extra': {'type': ['object', 'null']},
        'description': {'type': ['string', 'null'], 'maxLength': 255},
    },
    'additionalProperties': False,
}

# JSON-patch paths (validation.apply_patch): the field and, for extra, below it
PATCHABLE = {'description': True, 'extra': True}

FIELDS = ('uuid', 'description', 'extra', 'nodes', 'links', 'created_at', 'updated_at')
# what a listing shows without ``detail`` or ``fields`` (plus links)
DEFAULT_LIST_FIELDS = ('uuid', 'description')
LIST_PARAMS = ('marker', 'limit', 'sort_key', 'sort_dir', 'fields', 'detail')
DETAIL_PARAMS = ('marker', 'limit', 'sort_key', 'sort_dir')
# sortable: never by extra (Ironic's invalid_sort_key_list)
SORT_KEYS = ('id', 'uuid', 'description', 'created_at', 'updated_at')
