"""Body of POST /reshaper (1.30+), by microversion (see schemas.allocation.for_version)."""

from api.placement.schemas import allocation, common, inventory


def _body(consumer_entry):
    return {
        'type': 'object',
        'properties': {
            'inventories': {
                'type': 'object',
                'minProperties': 1,
                'patternProperties': {common.UUID36: inventory.PUT_INVENTORIES},
                'additionalProperties': False,
            },
            'allocations': allocation.consumers(consumer_entry, min_properties=0),
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }


_ENTRIES = dict(allocation.CONSUMER_ENTRY)

POST_RESHAPER = [('1.30', _body(_ENTRIES['1.28'])),
                 ('1.34', _body(_ENTRIES['1.34'])),
                 ('1.38', _body(_ENTRIES['1.38']))]
