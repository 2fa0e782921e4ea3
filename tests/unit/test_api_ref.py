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
            'api-ref/source/%s is stale: run "make api-ref" and commit it' % name)


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
