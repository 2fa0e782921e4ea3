"""json_body's shortcut for bodies of plain strings agrees with the schema's validator.

A body that holds only nullable-string properties of an object schema
(``{"resource_class": "baremetal"}``, the usual POST /v1/allocations) skips
jsonschema; every other body, and every body the schema refuses, still
goes through it and gets its 400 with Ironic's text.
"""

import jsonschema
import pytest
import webob

from api.baremetal import fault, validation
from api.baremetal.schemas import allocation, chassis, node, node_state, node_trait

SCHEMAS = [value for module in (allocation, chassis, node, node_state, node_trait)
           for name, value in sorted(vars(module).items())
           if name.endswith('SCHEMA') and isinstance(value, dict)]

BODIES = [
    {}, {'resource_class': 'baremetal'}, {'resource_class': None},
    {'resource_class': 'x' * 80}, {'resource_class': 'x' * 81},
    {'resource_class': 'é' * 80}, {'resource_class': 7}, {'resource_class': ['a']},
    {'name': 'n', 'uuid': None, 'node': 'x' * 1000, 'owner': 'o' * 255},
    {'owner': 'o' * 256}, {'owner': True}, {'name': {'a': 1}},
    {'unknown': 'x'}, {'traits': ['CUSTOM_A']}, {'traits': None},
    {'resource_class': 'baremetal', 'extra': {}}, {'description': 'd'},
    {'driver': 'fake-hardware', 'name': None}, [], 'text', None, 3,
]


@pytest.mark.parametrize('schema', SCHEMAS, ids=lambda s: ','.join(sorted(s.get(
    'properties', {})))[:40])
def test_the_shortcut_accepts_only_what_the_validator_accepts(schema):
    checker = jsonschema.Draft7Validator(schema)
    for body in BODIES:
        if validation._plainly_valid(schema, body):
            assert not list(checker.iter_errors(body)), body


def test_a_plain_allocation_body_takes_the_shortcut():
    schema = allocation.CREATE_SCHEMA
    assert validation._plainly_valid(schema, {'resource_class': 'baremetal'})
    assert validation._plainly_valid(schema, {'resource_class': 'rc', 'name': None,
                                              'owner': 'p'})
    # arrays, objects and over-long strings are the validator's to judge
    assert not validation._plainly_valid(schema, {'traits': ['CUSTOM_A']})
    assert not validation._plainly_valid(schema, {'extra': {}})
    assert not validation._plainly_valid(schema, {'resource_class': 'x' * 81})


def _request(body):
    return webob.Request.blank('/v1/allocations', method='POST', body=body)


@pytest.mark.parametrize('body,text', [
    (b'{"resource_class": "' + b'x' * 81 + b'"}',
     "Invalid input for field/attribute resource_class. 'xxxxx"),
    (b'{"resource_class": 7}',
     "Invalid input for field/attribute resource_class. 7 is not of type"),
    (b'{"owner": "o", "bogus": "x"}',
     "Invalid input for field/attribute body. Additional properties are not "
     "allowed ('bogus' was unexpected)"),
])
def test_refused_bodies_keep_the_validators_answer(body, text):
    with pytest.raises(fault.BadRequest) as caught:
        validation.json_body(_request(body), allocation.CREATE_SCHEMA)
    assert text in caught.value.detail


def test_an_accepted_body_is_returned_as_parsed():
    body = b'{"resource_class": "baremetal", "name": null}'
    assert validation.json_body(_request(body), allocation.CREATE_SCHEMA) == {
        'resource_class': 'baremetal', 'name': None}
