"""api-ref/source is generated from the route tables and a real berth: stale files fail here."""

import functools
import pathlib
import re

import yaml

from api.baremetal import routes as baremetal_routes
from api.placement import errors as error_codes
from api.placement import routes as placement_routes
from api.placement.schemas import claim as claim_schema
from cli.api_ref import errors as api_ref_errors
from cli.api_ref import generate as api_ref
from cli.api_ref import params as api_ref_params
from cli.api_ref import response as api_ref_response
from cli.api_ref import scenario as api_ref_samples
from cli.api_ref import status as api_ref_status
from cli.api_ref import words as api_ref_words

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
            used.update(re.findall(r'^  - [^\d\s]\S*: (\S+)$', text, re.M))
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


def _params(table, method, path):
    handler = dict(table)[path][method]
    extension = path in api_ref.placement_reference.EXTENSIONS
    versions = api_ref._versions(handler, '1.0', api_ref.PLACEMENT_MAX)
    params = api_ref_params.route_params(method, path, handler, versions,
                                         extension=extension)
    return {(p.where, p.name): (api_ref_params.bounds(p, versions), p.required)
            for p in params}


def test_body_parameters_carry_the_microversions_of_their_schemas():
    put_rc = _params(placement_routes.ROUTES, 'PUT', '/resource_classes/{name}')
    assert put_rc[('body', 'name')] == ((None, '1.6'), True)
    post_rp = _params(placement_routes.ROUTES, 'POST', '/resource_providers')
    assert post_rp[('body', 'parent_provider_uuid')] == (('1.14', None), False)
    assert post_rp[('body', 'name')] == ((None, None), True)
    aggregates = _params(placement_routes.ROUTES, 'PUT',
                         '/resource_providers/{uuid}/aggregates')
    assert aggregates[('body', 'resource_provider_generation')] == (('1.19', None), True)
    put_alloc = _params(placement_routes.ROUTES, 'PUT', '/allocations/{consumer_uuid}')
    assert put_alloc[('body', 'consumer_type')] == (('1.38', None), True)
    assert put_alloc[('body', 'consumer_generation')] == (('1.28', None), True)
    assert put_alloc[('body', 'project_id')] == (('1.8', None), True)


def test_query_parameters_carry_the_microversions_of_their_parsers():
    candidates = _params(placement_routes.ROUTES, 'GET', '/allocation_candidates')
    assert candidates[('query', 'resources')] == ((None, '1.24'), True)
    assert candidates[('query', 'resourcesN')] == (('1.25', None), False)
    assert candidates[('query', 'same_subtree')] == (('1.36', None), False)
    usages = _params(placement_routes.ROUTES, 'GET', '/usages')
    assert usages[('query', 'consumer_type')] == (('1.38', None), False)
    assert usages[('query', 'project_id')] == ((None, None), True)


def test_extensions_show_their_own_input_at_every_microversion():
    claims = _params(placement_routes.ROUTES, 'POST', '/claims')
    assert ('body', 'consumer_uuids') in claims
    assert not [key for key in claims if key[0] == 'query']
    assert all(bounds == (None, None) for bounds, _ in claims.values())
    capacity = _params(placement_routes.ROUTES, 'GET', '/capacity')
    assert ('query', 'providers') in capacity and ('query', 'resourcesN') in capacity
    assert ('query', 'limit') not in capacity


def test_baremetal_parameters_are_read_from_the_v1_parsers():
    def names(method, path):
        handler = dict(baremetal_routes.ROUTES)[path][method]
        return {(p.where, p.name) for p in api_ref_params.route_params(
            method, path, handler, ('1.1', '1.65'), placement=False)}
    assert {('query', 'resource_class'), ('query', 'limit'), ('query', 'fields')} <= (
        names('GET', '/v1/nodes'))
    assert ('body', 'driver') in names('POST', '/v1/nodes')
    assert ('body', 'candidate_nodes') in names('POST', '/v1/allocations')
    assert names('PATCH', '/v1/allocations/{allocation}') == {('body', 'patch')}


def test_every_generated_parameter_has_a_description():
    defined = yaml.safe_load(api_ref.render()['parameters.yaml'])
    missing = sorted(key for key, entry in defined.items()
                     if api_ref.MISSING in entry['description'])
    assert missing == [], 'add a sentence to cli/api_ref/words.py for %s' % missing


def test_descriptions_prefer_the_nearest_and_the_query_sentence():
    assert api_ref_words.describe('/v1/nodes', 'driver', 'query') == (
        api_ref_words.DESCRIPTIONS['/v1?driver'])
    assert api_ref_words.describe('/v1/nodes', 'driver') == (
        api_ref_words.DESCRIPTIONS['/v1/nodes:driver'])
    assert api_ref_words.describe('/resource_classes/{name}', 'name') == (
        api_ref_words.DESCRIPTIONS['/resource_classes:name'])
    assert api_ref_words.describe('/nowhere', 'no-such-name') is None


def test_every_included_sample_is_committed():
    text = '\n'.join(api_ref.render().values())
    included = re.findall(r'^\.\. literalinclude:: (samples/\S+)$', text, re.M)
    assert len(included) > 40
    for name in included:
        assert (SOURCE / name).is_file(), name
    for method, path in (('POST', '/resource_providers'), ('PUT', '/allocations/'
                         '{consumer_uuid}'), ('GET', '/allocation_candidates'),
                         ('POST', '/claims'), ('POST', '/v1/allocations')):
        assert api_ref_samples.samples_of(method, path), (method, path)


def test_normalize_maps_what_berth_makes_up_in_order():
    placeholders = {}
    made = ['0c4a9a8e-8b3e-4a57-9d3b-6a1b1f8e2d11', 'f3b8d6c2-1111-4a57-9d3b-6a1b1f8e2d22']
    text = '{"a": "%s", "b": "%s", "c": "%s", "at": "2031-05-06T07:08:09.123456", ' \
        '"u": "http://127.0.0.1:41234/v1", "n": "%s"}' % (
            made[0], made[1], made[0], api_ref_samples.NODE)
    out = api_ref_samples.normalize(
        text, {'http://127.0.0.1:41234': api_ref_samples.BAREMETAL_URL}, placeholders)
    first = api_ref_samples.fixed_uuid('generated-0')
    second = api_ref_samples.fixed_uuid('generated-1')
    assert out == ('{"a": "%s", "b": "%s", "c": "%s", "at": "%s", "u": "%s/v1", '
                   '"n": "%s"}' % (first, second, first, api_ref_samples.TIMESTAMP,
                                   api_ref_samples.BAREMETAL_URL, api_ref_samples.NODE))


_render = functools.cache(api_ref.render)


def _sections(text):
    """{(method, path): section text} of one rendered .inc file."""
    parts = re.split(r'^(?=\S[^\n]*\n=+\n\n\.\. rest_method::)', text, flags=re.M)
    out = {}
    for part in parts:
        found = re.search(r'^\.\. rest_method:: (\S+) (\S+)$', part, re.M)
        if found:
            out[found.groups()] = part
    return out


def _all_sections():
    rendered = _render()
    out = {}
    for name, text in rendered.items():
        if name.endswith('.inc'):
            out.update({(name,) + key: part for key, part in _sections(text).items()})
    return out


def _error_block(section):
    found = re.search(r'^\.\. rest_status_code:: error status\.yaml\n\n((?:  - .*\n)+)',
                      section, re.M)
    return found.group(1).splitlines() if found else []


def test_every_route_lists_the_errors_its_handler_can_answer():
    sections = _all_sections()
    for name, table, placement in (('placement', placement_routes.ROUTES, True),
                                   ('baremetal', baremetal_routes.ROUTES, False)):
        for path, handlers in table:
            for method, handler in sorted(handlers.items()):
                inc = ('placement-extensions.inc' if path in
                       api_ref.placement_reference.EXTENSIONS else '%s.inc' % name)
                block = _error_block(sections[(inc, method, path)])
                expected = api_ref_errors.rest_lines(api_ref_errors.route_errors(
                    method, path, handler, placement))
                assert block == expected, (method, path)
                if path not in ('/', '/v1'):  # the version documents
                    assert block, ('no error codes', method, path)
            if not handlers:
                assert _error_block(sections[('%s.inc' % name, 'ANY', path)]) == ['  - 405']


def test_error_codes_are_read_from_the_handlers_and_the_reviewed_table():
    def errors(method, path):
        handler = dict(placement_routes.ROUTES)[path][method]
        return api_ref_errors.route_errors(method, path, handler)
    claims = errors('POST', '/claims')
    # raised by the handler itself: read from its source
    assert (400, error_codes.CLAIM_CONSUMERS) in api_ref_errors._raised(
        dict(placement_routes.ROUTES)['/claims']['POST'])
    assert (400, error_codes.QUERY_BAD_VALUE) in claims  # the candidate parser
    assert (503, error_codes.SERVICE_UNAVAILABLE) in claims  # require_conductor
    assert {(409, error_codes.NO_VALID_HOST), (403, error_codes.QUOTA_EXCEEDED),
            (413, error_codes.REQUEST_TOO_LARGE), (415, 'default')} <= set(claims)
    assert (400, error_codes.CAPACITY_BAD_QUERY) in errors('GET', '/capacity')
    assert (404, 'default') in errors('GET', '/resource_providers/{uuid}')
    assert (404, 'default') in errors('GET', '/allocation_candidates')  # from 1.10
    assert (404, 'default') not in errors('GET', '/resource_providers')
    assert errors('GET', '/') == []


def test_every_error_code_is_real_described_and_answered_somewhere():
    known = api_ref_errors.all_codes()
    assert set(api_ref_errors.REASONS) == known
    routes = {(m, p) for table in (placement_routes.ROUTES, baremetal_routes.ROUTES)
              for p, handlers in table for m in handlers}
    assert set(api_ref_errors.BELOW) <= routes
    rendered = _render()
    described = yaml.safe_load(rendered['status.yaml'])
    named = set()
    for section in _all_sections().values():
        for line in _error_block(section):
            status, _, code = line[4:].partition(': ')
            assert int(status) in described and 'default' in described[int(status)]
            if code:
                assert code in known, code
                assert code in described[int(status)], (status, code)
                named.add(code)
    assert named == known, known - named
    assert error_codes.NO_VALID_HOST in named and error_codes.QUOTA_EXCEEDED in named


def test_titles_are_words_and_unique():
    for (_, method, path), section in _all_sections().items():
        title = section.splitlines()[0]
        assert title == api_ref_response.title(method, path)
        assert '/' not in title and title[0].isupper(), title
    titles = [t for (m, p), t in api_ref_response.TITLES.items() if p != '/']
    assert len(titles) == len(set(titles))


def test_every_answer_sample_has_a_response_table():
    defined = yaml.safe_load(_render()['parameters.yaml'])
    for (_, method, path), section in _all_sections().items():
        answers = [step for step, _ in api_ref_samples.samples_of(method, path)
                   if step.answer]
        if not answers:
            continue
        response = section.split('\nResponse\n--------\n', 1)[1]
        table = re.findall(r'^  - (\S+): (\S+)$', response.split('.. literalinclude')[0],
                           re.M)
        fields = api_ref_response.fields(answers[-1].name)
        assert [name for name, _ in table] == [name for name, _ in fields], (method, path)
        for name, key in table:
            assert defined[key]['in'] == 'body' and defined[key]['description'].strip() != (
                api_ref.MISSING), key


# routes whose 200/201 success answers carry no body, so no answer sample and
# no response table; each has a scenario step with ``answer=False``, so
# tests/functional/test_api_ref_samples.py fails if it ever answers one
NO_BODY = {
    # 201 with a Location header and no body, at every microversion (1.2 on)
    ('POST', '/resource_classes'),
    # 201 (created) or 204 (already there), a Location header and no body
    ('PUT', '/traits/{name}'),
}


def test_every_route_answering_200_or_201_has_an_answer_sample():
    missing, listed = [], set()
    for table in (placement_routes.ROUTES, baremetal_routes.ROUTES):
        for path, handlers in table:
            for method, handler in sorted(handlers.items()):
                if not {200, 201} & set(api_ref_status.success_codes(handler)):
                    continue
                steps = [step for step in api_ref_samples.STEPS
                         if (step.method, step.route) == (method, path)]
                if (method, path) in NO_BODY:
                    listed.add((method, path))
                    assert not [s for s in steps if s.answer], (
                        'has an answer sample: take it off NO_BODY', method, path)
                    assert [s for s in steps if not s.answer], (
                        'no step shows it answers no body', method, path)
                elif not [s for s in steps if s.name and s.answer]:
                    missing.append('%s %s' % (method, path))
    assert missing == [], (
        'add a step to cli/api_ref/scenario.py (an answer sample, hence a '
        'response table) for %s' % missing)
    assert listed == NO_BODY, NO_BODY - listed


def test_one_of_fields_say_exactly_one_of():
    defined = yaml.safe_load(_render()['parameters.yaml'])
    section = _all_sections()[('placement-extensions.inc', 'POST', '/claims')]
    for name in claim_schema.ONE_OF:
        key = re.search(r'^  - %s: (\S+)$' % name, section, re.M).group(1)
        assert defined[key]['required'] is False
        assert 'Exactly one of ``consumer_uuid`` and ``consumer_uuids``' in (
            defined[key]['description']), key


def test_pin_gives_every_field_of_a_name_its_fixed_value():
    answer = {'conductors': [{'host': 'c0', 'ping_ms': 3.2, 'joined_age': None}],
              'ping_ms': 'top', 'n': [1, {'joined_age': 7}]}
    assert api_ref_samples.pin(answer, {'ping_ms': 1.0, 'joined_age': 1.0}) == {
        'conductors': [{'host': 'c0', 'ping_ms': 1.0, 'joined_age': 1.0}],
        'ping_ms': 1.0, 'n': [1, {'joined_age': 1.0}]}


def test_a_node_event_path_shows_its_stand_in():
    step = [s for s in api_ref_samples.STEPS if s.name == 'node-history-event-show'][0]
    event = step.args['event']
    assert step.path == '/v1/nodes/%s/history/%s' % (
        api_ref_samples.NODE, api_ref_samples.fixed_uuid(event.label))
    shown = (SOURCE / 'samples' / 'node-history-event-show-resp.json').read_text()
    assert '"uuid": "%s"' % event in shown
