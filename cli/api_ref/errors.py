"""The error status codes (and error codes) of each route, for the api-ref.

What a route can answer is read from its handler the way
cli/api_ref/status.py reads its success codes: the source of the handler and
of the berth helpers it calls (a few calls deep) is searched for the errors
it raises (``fault.BadRequest(...)``, ``code=errors.X``), the calls that
refuse input (the validation calls of cli/api_ref/params.py: 400), authorize
(``policy.authorize``: 401 and 403) or need a conductor (503), the domain
exceptions it raises itself (translated by the API's table) and the
decorator's flags (``json_body``: 400, 413, 415; ``json_reply``: 406); a path
parameter adds 404, as does a Placement route that starts above 1.0.  What
is raised below the API (objects, conductors) cannot be read from the
handler: :data:`BELOW` is the reviewed table of those Placement error codes,
by route.  tests/unit/test_api_ref.py checks that every code named exists in
api/placement/errors.py and that every one of them is answered somewhere.
"""

import ast
import functools
import inspect
import sys

from api.common import errors as common_errors
from api.placement import errors as codes
from api.placement import fault as placement_fault
from cli.api_ref import params as api_ref_params
from common import exception

# error class name -> HTTP status
STATUS = {name: cls.status for name, cls in vars(common_errors).items()
          if isinstance(cls, type) and issubclass(cls, common_errors.ApiError)
          and cls is not common_errors.ApiError}
# helpers of these modules are not followed (they dispatch, they do not refuse)
_NOT_FOLLOWED = ('router', 'app', 'response', 'links', 'microversion', 'version')
DEPTH = 3

# the error codes that objects and conductors raise, by Placement route
_GENERATION = [codes.CONCURRENT_UPDATE]
_ALLOCATE = [codes.CONCURRENT_UPDATE, codes.QUOTA_EXCEEDED,
             codes.QUOTA_LIMITS_UNAVAILABLE]
BELOW = {
    ('POST', '/claims'): [codes.NO_VALID_HOST, codes.QUOTA_EXCEEDED,
                          codes.QUOTA_LIMITS_UNAVAILABLE, codes.CONCURRENT_UPDATE],
    ('POST', '/allocations'): _ALLOCATE,
    ('PUT', '/allocations/{consumer_uuid}'): _ALLOCATE,
    ('DELETE', '/allocations/{consumer_uuid}'): _GENERATION,
    ('POST', '/resource_providers'): [codes.DUPLICATE_NAME],
    ('PUT', '/resource_providers/{uuid}'): [codes.DUPLICATE_NAME, codes.CONCURRENT_UPDATE],
    ('DELETE', '/resource_providers/{uuid}'): [
        codes.PROVIDER_IN_USE, codes.PROVIDER_CANNOT_DELETE_PARENT],
    ('PUT', '/resource_providers/{uuid}/aggregates'): _GENERATION,
    ('PUT', '/resource_providers/{uuid}/traits'): _GENERATION,
    ('DELETE', '/resource_providers/{uuid}/traits'): _GENERATION,
    ('POST', '/resource_providers/{uuid}/inventories'): _GENERATION,
    ('PUT', '/resource_providers/{uuid}/inventories'): [
        codes.CONCURRENT_UPDATE, codes.INVENTORY_INUSE],
    ('DELETE', '/resource_providers/{uuid}/inventories'): [
        codes.CONCURRENT_UPDATE, codes.INVENTORY_INUSE],
    ('PUT', '/resource_providers/{uuid}/inventories/{resource_class}'): _GENERATION,
    ('DELETE', '/resource_providers/{uuid}/inventories/{resource_class}'): [
        codes.CONCURRENT_UPDATE, codes.INVENTORY_INUSE],
    ('POST', '/reshaper'): [codes.CONCURRENT_UPDATE, codes.INVENTORY_INUSE,
                            codes.RESOURCE_PROVIDER_NOT_FOUND],
    ('GET', '/quotas/{project_id}'): [codes.QUOTA_LIMITS_UNAVAILABLE],
    ('PUT', '/quotas/{project_id}'): [codes.QUOTA_LIMITS_UNAVAILABLE,
                                      codes.QUOTA_LIMITS_READ_ONLY],
    ('DELETE', '/quotas/{project_id}'): [codes.QUOTA_LIMITS_UNAVAILABLE,
                                         codes.QUOTA_LIMITS_READ_ONLY],
}

# every error code's status and its sentence in status.yaml
REASONS = {
    codes.INVENTORY_INUSE: (409, 'The inventory is in use: allocations hold it.'),
    codes.CONCURRENT_UPDATE: (
        409, 'The provider or consumer generation sent is not the current one '
             '(another writer was first): read it again and retry.'),
    codes.DUPLICATE_NAME: (409, 'Another resource provider has this name.'),
    codes.PROVIDER_IN_USE: (409, 'The provider has allocations.'),
    codes.PROVIDER_CANNOT_DELETE_PARENT: (409, 'The provider has child providers.'),
    codes.RESOURCE_PROVIDER_NOT_FOUND: (400, 'A provider the body names does not exist.'),
    codes.QUERY_DUPLICATE_KEY: (400, 'A query key that may appear once appears twice.'),
    codes.QUERY_BAD_VALUE: (400, 'A query parameter has a value that is not allowed.'),
    codes.QUERY_MISSING_VALUE: (400, 'A query parameter the request needs is missing.'),
    codes.SERVICE_UNAVAILABLE: (
        503, 'No conductor answered (none is running, or the call timed out).'),
    codes.OUTCOME_UNKNOWN: (
        503, 'The write reached a conductor, or may have, and its answer could not '
             'come: it may have been written (never after its deadline); retrying '
             'the same request is safe.'),
    codes.STORAGE_FULL: (
        507, "The database's disk is full: nothing was written; retry once space "
             'is freed.'),
    codes.REQUEST_TOO_LARGE: (
        413, 'The body is larger than ``[api] max_request_body_size``.'),
    codes.NO_VALID_HOST: (
        409, 'No provider tree fits the request; the detail names the constraint.'),
    codes.QUOTA_EXCEEDED: (
        403, "The claim would take the project's usage over its quota "
             '(``[quota] enforce``).'),
    codes.QUOTA_LIMITS_UNAVAILABLE: (503, 'The quota limits could not be read.'),
    codes.QUOTA_LIMITS_READ_ONLY: (
        409, 'The limits come from keystone (``[quota] driver``) and are read here.'),
    codes.CAPACITY_BAD_QUERY: (400, 'The capacity question is not one berth answers.'),
    codes.CLAIM_CONSUMERS: (
        400, 'Not exactly one of ``consumer_uuid`` and ``consumer_uuids`` is given.'),
}
DEFAULTS = {
    400: 'The request is malformed or a parameter is invalid.',
    401: 'The request has no valid token (``[api] auth_strategy = keystone``).',
    403: 'The policy forbids the caller this request.',
    404: 'The resource does not exist, or the route does not at this microversion.',
    405: 'The method is not one this path serves.',
    406: 'The ``Accept`` header refuses ``application/json``.',
    409: 'The request conflicts with the current state.',
    413: 'The body is too large.',
    415: 'The body is not ``application/json``.',
    503: 'The service cannot answer now.',
    507: "The database's disk is full: nothing was written.",
}
# the methods that write (a full database disk answers them 507)
WRITES = frozenset(('PUT', 'POST', 'PATCH', 'DELETE'))


def all_codes():
    """Every error code of api/placement/errors.py but the undefined one."""
    return {value for name, value in vars(codes).items()
            if name.isupper() and isinstance(value, str) and value != codes.DEFAULT}


def _name(call):
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', None)


def _resolve(node, module):
    """The object a Name or ``module.attr`` node names in ``module``, or None."""
    if isinstance(node, ast.Name):
        return getattr(module, node.id, None)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = getattr(module, node.value.id, None)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


def _follow(call, module):
    target = _resolve(call.func, module)
    if not inspect.isfunction(target) or not target.__module__.startswith('api.'):
        return None
    if target.__module__.rsplit('.', 1)[-1] in _NOT_FOLLOWED:
        return None
    return inspect.unwrap(target)


def _domain(cls):
    """(status, code) of a domain exception, as the Placement table translates it."""
    for exc_cls, api_cls, code in placement_fault._BY_EXCEPTION:
        if issubclass(cls, exc_cls):
            return api_cls.status, code or 'default'
    return 500, 'default'


def _call_errors(call, module):
    name = _name(call)
    found = set()
    if name in STATUS:
        code = next((k.value for k in call.keywords if k.arg == 'code'), None)
        value = _resolve(code, module) if code is not None else None
        found.add((STATUS[name], value if isinstance(value, str) else 'default'))
    elif name == 'authorize':
        found |= {(401, 'default'), (403, 'default')}
    elif name in api_ref_params.CALLS:
        found.add((400, 'default'))
    elif name == 'require_conductor':
        found |= {(503, codes.SERVICE_UNAVAILABLE), (503, codes.OUTCOME_UNKNOWN)}
    else:
        target = _resolve(call.func, module)
        if isinstance(target, type) and issubclass(target, exception.BerthException):
            found.add(_domain(target))
    return found


@functools.cache
def _raised(function, depth=DEPTH):
    """{(status, code or 'default')} of the calls in ``function`` and its helpers."""
    tree = api_ref_params.tree(function)
    if tree is None:
        return frozenset()
    module = sys.modules[function.__module__]
    found = set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        found |= _call_errors(call, module)
        helper = _follow(call, module) if depth else None
        if helper is not None and helper is not function:
            found |= _raised(helper, depth - 1)
    return frozenset(found)


def route_errors(method, path, handler, placement=True):
    """The sorted [(status, code or 'default')] ``method path`` can answer."""
    found = set()
    if handler is not None:
        handler = inspect.unwrap(handler)
        found = {item for item in _raised(handler) if item[0] != 500}
        if getattr(handler, 'json_body', False):
            found |= {(400, 'default'), (415, 'default'),
                      (413, codes.REQUEST_TOO_LARGE if placement else 'default')}
        if getattr(handler, 'json_reply', False):
            found.add((406, 'default'))
    if [name for name in _path_params(path) if name != 'anything']:
        found.add((404, 'default'))
    low = str(getattr(handler, 'min_version', None) or '1.0')
    if placement and low != '1.0':
        found.add((404, 'default'))
    if handler is not None and method in WRITES:
        found.add((507, codes.STORAGE_FULL if placement else 'default'))
    if placement:
        found |= {(REASONS[code][0], code) for code in BELOW.get((method, path), ())}
    else:
        # Ironic's error body has no code: the statuses alone
        found = {(status, 'default') for status, _ in found}
    return sorted(found, key=lambda item: (item[0], item[1] != 'default', item[1]))


def _path_params(path: str) -> list[str]:
    return [part[1:-1] for part in path.split('/') if part.startswith('{')]


def rest_lines(errors: list[tuple[int, str]]) -> list[str]:
    """The items of a ``rest_status_code:: error`` list."""
    return ['  - %d' % status if code == 'default' else '  - %d: %s' % (status, code)
            for status, code in errors]


def status_yaml(success_yaml: str) -> str:
    """status.yaml: the success codes, then each error status with its codes' reasons."""
    lines = [success_yaml.rstrip('\n')]
    for status in sorted(set(DEFAULTS) | {s for s, _ in REASONS.values()}):
        lines.extend(['%d:' % status, '  default: |', '    %s' % DEFAULTS[status]])
        for code in sorted(c for c, (s, _) in REASONS.items() if s == status):
            lines.extend(['  %s: |' % code, '    ``%s``: %s' % (code, REASONS[code][1])])
    return '\n'.join(lines) + '\n'
