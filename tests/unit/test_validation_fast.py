"""The compiled validity check: the schemas it serves, a body it passes and one it refuses.

That it agrees with jsonschema on every schema, for generated bodies, is
hypothesis's work: tests/fuzz/test_validation_agreement.py (minutes, not a unit test).
"""

import uuid

from api.placement import microversion, validation
from api.placement.schemas import (
    aggregate,
    allocation,
    allocation_candidate,
    claim,
    inventory,
    quota,
    reshaper,
    resource_class,
    resource_provider,
    trait,
)


def _schemas():
    found = []
    for module in (aggregate, allocation, claim, inventory, quota, reshaper,
                   resource_class, resource_provider, trait):
        for name in dir(module):
            value = getattr(module, name)
            if name.isupper() and isinstance(value, dict) and 'type' in value:
                found.append(value)
            elif name.isupper() and isinstance(value, list):
                found.extend(s for _, s in value if isinstance(s, dict))
    # the ones built per microversion (query strings are dicts of strings/lists)
    for minor in (10, 16, 17, 21, 24, 25, 33, 35, 36, 39):
        version = microversion.Version(1, minor)
        found.append(allocation_candidate.list_query(version))
        found.append(resource_provider.list_query(version))
        found.append(resource_provider.post_provider(version))
        found.append(aggregate.put_aggregates(version))
    return found


SCHEMAS = _schemas()


def test_a_valid_claim_body_passes_and_an_invalid_one_names_the_field():
    schema = allocation.PUT_ALLOCATIONS[-1][1]
    body = {'allocations': {str(uuid.uuid4()): {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}
    assert validation._errors(schema, body) == []
    body['allocations'][next(iter(body['allocations']))]['resources']['VCPU'] = 0
    errors = validation._errors(schema, body)
    assert errors and 'minimum' in validation._message(errors[0])


def test_schemas_found():
    assert len(SCHEMAS) > 50


def test_a_schema_the_compiler_cannot_write_is_checked_by_jsonschema_alone():
    schema = {'type': 'object', 'patternProperties': {}, 'additionalProperties': False}
    assert validation._errors(schema, {}) == []
    errors = validation._errors(schema, {'x': 1})
    assert errors and errors[0].validator == 'additionalProperties'
