"""The compiled validity check agrees with jsonschema on every Placement schema."""

import uuid

import hypothesis
from hypothesis import strategies as st
import jsonschema
import pytest

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

# JSON values biased towards the shapes the schemas look at
_NAMES = st.sampled_from(['VCPU', 'MEMORY_MB', 'CUSTOM_GOLD', 'vcpu', '', 'A' * 300,
                          'allocations', 'resources', 'project_id', 'user_id',
                          'consumer_generation', 'consumer_type', 'total',
                          'resource_provider_generation', 'inventories', 'name',
                          'uuid', 'parent_provider_uuid', 'traits', 'aggregates',
                          'mappings', 'limit', 'resource_provider'])
_SCALARS = st.one_of(
    st.just("VCPU:1"), st.just("VCPU:1,MEMORY_MB:256"), st.just(["HW_CPU_X86_AVX2"]),
    st.just("in:" + str(uuid.uuid4())), st.just("1"), st.just("none"),
    st.none(), st.booleans(), st.integers(-3, 2 ** 31 + 2), st.floats(allow_nan=False),
    st.just(1.0), st.just(str(uuid.uuid4())), st.just(uuid.uuid4().hex),
    st.just('not-a-uuid'), st.just('INSTANCE'), st.just('lower'), st.text(max_size=5))
_JSON = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(_NAMES, st.just(str(uuid.uuid4()))), inner, max_size=4)),
    max_leaves=12)


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


def _reference_valid(schema, data):
    checker = jsonschema.Draft7Validator(schema, format_checker=validation._FORMATS)
    return not list(checker.iter_errors(data))


@pytest.mark.parametrize('index', range(len(SCHEMAS)))
@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(data=_JSON)
def test_compiled_check_never_accepts_what_jsonschema_refuses(index, data):
    schema = SCHEMAS[index]
    if _reference_valid(schema, data):
        assert validation._errors(schema, data) == []
    else:
        assert validation._errors(schema, data)


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
