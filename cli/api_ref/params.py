"""The query and body parameters of each route, read from the handlers for the api-ref.

A handler's parameters are what its validation calls check: the JSON schema
given to ``extract_json``/``json_body``/``check_schema`` (body) or
``validate_query`` (query), and the names given to the /v1 query parsers
(``known_params``, ``fields_param``, ``bool_param``, ``pagination``).  The
calls are found in the handler's source and in the helpers it calls; their
schema argument is evaluated at every microversion of the route (branches on
``req.version`` are followed as the handler would), so a field that exists at
some microversions only gets its ``min_version``/``max_version``.
"""

import ast
import dataclasses
import functools
import inspect
import re
import sys
import textwrap
import types

from api.placement import microversion

# call name -> (where, index of the argument that says what is checked)
CALLS = {
    'extract_json': ('body', 1), 'json_body': ('body', 1), 'check_schema': ('body', 0),
    'validate_query': ('query', 1), 'known_params': ('query', 1),
    'fields_param': ('query', None), 'bool_param': ('query', 1),
    'pagination': ('query', None),
}
FIXED = {'fields_param': ('fields',), 'pagination': ('limit', 'marker', 'sort_key', 'sort_dir')}
# helpers of these modules check nothing a caller sends: not followed
_LEAVES = ('validation', 'query', 'response', 'fault', 'policy', 'router', 'microversion',
           'version', 'errors', 'links')
# helpers not followed: what they check is not the route's own input (a claim's
# body re-read as a query string)
SKIPPED = {'api.placement.handlers.claim.parse_request',
           # the items of ``deploy_steps``, a body field PROVISION_SCHEMA names
           'api.baremetal.provision_params._deploy_steps'}
# what a followed helper's schema allows but the route refuses
REFUSED = {('GET', '/capacity'): {'limit'}}
# what no validation call names: (where, name, type, required)
EXTRA = {
    ('GET', '/capacity'): [('query', 'providers', 'integer', False)],
}
# a body keyed by these patterns is named for them
PATTERN_NAMES = {'^[0-9a-fA-F-]{36}$': 'consumer_uuid'}
_SUFFIXED = re.compile(r'^\^(\w+)\(.*\)\?\$$')
_UNKNOWN = object()


@dataclasses.dataclass
class Param:
    """One parameter of one route: its rows in parameters.yaml and the section."""

    name: str
    where: str
    types: list
    required: bool
    versions: list


class _Request:
    """What a handler's validation expressions read of a request."""

    def __init__(self, version):
        self.version = version
        self.GET = {}
        self.urlvars = {}


@functools.cache
def tree(function):
    """The parsed source of ``function`` (None where it has none)."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None


def _eval(node, module, req):
    try:
        code = compile(ast.Expression(body=node), '<api-ref>', 'eval')
        return eval(code, vars(module), {'req': req})  # noqa: S307 (our own source)
    except Exception:
        if isinstance(node, ast.IfExp):
            return [_eval(node.body, module, req), _eval(node.orelse, module, req)]
        return _UNKNOWN


def _calls(node, module, req):
    """The Call nodes under ``node``, taking only the branch ``req.version`` takes."""
    if isinstance(node, ast.Call):
        yield node
    for value in (v for _, v in ast.iter_fields(node)):
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield from _block(value, module, req)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    yield from _calls(item, module, req)
        elif isinstance(value, ast.AST):
            yield from _calls(value, module, req)


def _block(statements, module, req):
    """The calls of a statement list; a taken branch that returns ends it."""
    for statement in statements:
        if isinstance(statement, ast.If) and 'req.version' in ast.unparse(statement.test):
            taken = _eval(statement.test, module, req)
            if isinstance(taken, bool):
                branch = statement.body if taken else statement.orelse
                yield from _block(branch, module, req)
                if branch and isinstance(branch[-1], (ast.Return, ast.Raise)):
                    return
                continue
        yield from _calls(statement, module, req)


def _callee(call, module):
    """The berth function a call reaches (a helper to follow), or None."""
    func = call.func
    if isinstance(func, ast.Name):
        target = getattr(module, func.id, None)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = getattr(module, func.value.id, None)
        if not isinstance(owner, types.ModuleType) or owner.__name__.rsplit(
                '.', 1)[-1] in _LEAVES:
            return None
        target = getattr(owner, func.attr, None)
    else:
        return None
    if inspect.isfunction(target) and target.__module__.startswith('api.') and (
            '%s.%s' % (target.__module__, target.__name__)) not in SKIPPED:
        return inspect.unwrap(target)
    return None


def _name(call):
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', None)


def _checked(function, req, depth=4, seen=None):
    """[(where, schema or names)] of every validation call ``function`` makes."""
    seen = set() if seen is None else seen
    if function in seen or tree(function) is None:
        return []
    seen.add(function)
    module = sys.modules[function.__module__]
    found = []
    for call in _calls(tree(function), module, req):
        name = _name(call)
        if name in CALLS:
            where, index = CALLS[name]
            if index is None:
                found.append((where, FIXED[name]))
            elif index < len(call.args):
                found.append((where, _eval(call.args[index], module, req)))
        elif depth:
            helper = _callee(call, module)
            if helper is not None:
                found.extend(_checked(helper, req, depth - 1, seen))
    return found


def _types(schema):
    if 'anyOf' in schema:
        return [t for part in schema['anyOf'] for t in _types(part)]
    kind = schema.get('type', 'string' if 'enum' in schema or 'pattern' in schema
                      else 'object')
    kinds = kind if isinstance(kind, list) else [kind]
    return [{'number': 'float'}.get(k, k) for k in kinds if k != 'null'] or ['null']


def _from_schema(schema, where, array_name):
    """[(name, types, required)] of one schema's fields (a body, a query string)."""
    if isinstance(schema, list):
        return [row for part in schema for row in _from_schema(part, where, array_name)]
    if isinstance(schema, (tuple, str)):
        return [(name, ['string'], False) for name in (
            (schema,) if isinstance(schema, str) else schema)]
    if not isinstance(schema, dict):
        return []
    if schema.get('type') == 'array':
        return [(array_name, ['array'], True)]
    required = set(schema.get('required', ()))
    rows = [(name, _types(part), name in required)
            for name, part in schema.get('properties', {}).items()]
    for pattern, part in schema.get('patternProperties', {}).items():
        match = _SUFFIXED.match(pattern)
        if where == 'query' and match:
            rows.append((match.group(1) + 'N', _types(part), False))
        elif pattern in PATTERN_NAMES:
            rows.append((PATTERN_NAMES[pattern], ['object'], True))
            rows.extend(_from_schema(part, where, array_name))
    return rows


def _version_list(low, high, extension):
    if extension:
        return [str(microversion.MAX_VERSION)]
    low, high = microversion.Version.parse(low), microversion.Version.parse(high)
    return [v for v in microversion.VERSIONS
            if low <= microversion.Version.parse(v) <= high]


def route_params(method, path, handler, versions, placement=True, extension=False):
    """The [Param] of one route, in the order they are first met.

    ``versions`` is the (lowest, highest) microversion of the route; the
    bare-metal routes are read at their newest (their schemas do not change),
    berth's extensions at the newest Placement microversion (they serve every
    microversion and parse at a fixed one).
    """
    handler = inspect.unwrap(handler)
    low, high = versions
    wanted: list[str | None] = (
        list(_version_list(low, high, extension)) if placement else [None])
    out: dict[tuple[str, str], Param] = {}
    for version in wanted:
        req = _Request(microversion.Version.parse(version) if version else None)
        array_name = path.rstrip('/').rsplit('/', 1)[-1]
        for where, schema in _checked(handler, req):
            for name, kinds, required in _from_schema(schema, where, array_name):
                param = out.setdefault((where, name), Param(name, where, [], True, []))
                param.types.extend(k for k in kinds if k not in param.types)
                param.required = param.required and required
                seen = None if extension else version
                if seen not in param.versions:
                    param.versions.append(seen)
    if method == 'PATCH':
        out[('body', 'patch')] = Param('patch', 'body', ['array'], True, [None])
    for name in REFUSED.get((method, path), ()):
        out.pop(('query', name), None)
    for where, name, kind, required in EXTRA.get((method, path), []):
        out[(where, name)] = Param(name, where, [kind], required, [None])
    order = {'header': 0, 'path': 1, 'query': 2, 'body': 3}
    return sorted(out.values(), key=lambda p: order[p.where])


def bounds(param, versions):
    """(min_version, max_version) to print for ``param``: None where it spans the route."""
    seen = [v for v in param.versions if v is not None]
    if not seen:
        return None, None
    low = seen[0] if seen[0] != versions[0] else None
    high = seen[-1] if seen[-1] != versions[1] else None
    return low, high
