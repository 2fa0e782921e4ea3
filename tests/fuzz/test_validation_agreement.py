"""The compiled validity check agrees with jsonschema on every Placement schema.

150 generated bodies for each of the ~100 schemas of
tests/unit/test_validation_fast.py: minutes on 2 cores, so it runs in the fuzz
tier, not the unit tier.
"""

import uuid

import hypothesis
from hypothesis import strategies as st
import jsonschema
import pytest

from api.placement import validation
from tests.unit.test_validation_fast import SCHEMAS

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
