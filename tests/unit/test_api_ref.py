"""api-ref/source is generated from the route tables: stale files fail here."""

import pathlib
import re

import yaml

from api import api_ref
from api.baremetal import routes as baremetal_routes
from api.placement import routes as placement_routes

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / 'api-ref' / 'source'


def test_api_ref_sources_are_current():
    for name, text in api_ref.render().items():
        committed = (SOURCE / name).read_text()
        assert text == committed, (
            'api-ref/source/%s is stale: run "make sample-config" and commit it' % name)


def test_every_route_has_a_rest_method():
    text = '\n'.join(api_ref.render().values())
    methods = set(re.findall(r'^\.\. rest_method:: (\S+) (\S+)$', text, re.M))
    for table in (placement_routes.ROUTES, baremetal_routes.ROUTES):
        for path, handlers in table:
            for method in handlers or ['ANY']:
                assert (method, path) in methods, (method, path)


def test_every_parameter_used_is_defined():
    rendered = api_ref.render()
    defined = yaml.safe_load(rendered['parameters.yaml'])
    used = set()
    for name, text in rendered.items():
        if name.endswith('.inc'):
            used.update(re.findall(r'^  - (\S+): \S+$', text, re.M))
    assert used <= set(defined)
    assert defined['node']['in'] == 'path'


def test_success_codes_are_read_from_the_handlers():
    def codes(table, method, path):
        return api_ref.api_ref_status.success_codes(dict(table)[path][method])
    assert codes(baremetal_routes.ROUTES, 'POST', '/v1/nodes') == [201]
    assert codes(baremetal_routes.ROUTES, 'GET', '/v1/nodes') == [200]
    assert codes(baremetal_routes.ROUTES, 'PUT', '/v1/nodes/{node}/states/power') == [202]
    assert codes(placement_routes.ROUTES, 'PUT', '/resource_classes/{name}') == [200, 201, 204]
    assert codes(placement_routes.ROUTES, 'GET', '/traits/{name}') == [204]
    assert codes(placement_routes.ROUTES, 'DELETE', '/allocations/{consumer_uuid}') == [204]


def test_every_success_code_is_described():
    rendered = api_ref.render()
    described = yaml.safe_load(rendered['status.yaml'])
    for name, text in rendered.items():
        if name.endswith('.inc'):
            for code in re.findall(r'^  - (\d+)$', text, re.M):
                assert int(code) in described, (name, code)
