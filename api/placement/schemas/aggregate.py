"""Body of PUT /resource_providers/{uuid}/aggregates (array before 1.19, object after)."""

from api.placement import microversion
from api.placement.schemas import common

_AGGREGATES = {'type': 'array', 'items': common.UUID, 'uniqueItems': True,
               'maxItems': common.MAX_ITEMS}

PUT_AGGREGATES = _AGGREGATES

PUT_AGGREGATES_1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': _AGGREGATES,
        'resource_provider_generation': common.GENERATION,
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}


def put_aggregates(version):
    if version.matches(microversion.AGGREGATES_GENERATION):
        return PUT_AGGREGATES_1_19
    return PUT_AGGREGATES
