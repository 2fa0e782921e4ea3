"""Hypothesis strategies for hostile JSON: any value, unicode, deep and huge bodies,
and instances from a JSON schema's neighbourhood (valid ones, then mutated)."""

import functools
import json

from hypothesis import strategies as st

# values that sit on or just past the edges our schemas and columns care about
EDGE_INTS = [0, 1, -1, 2, 255, 256, 2147483647, 2147483648, -2147483648,
             -2147483649, 9223372036854775807, 9223372036854775808, 10 ** 30]
EDGE_FLOATS = [0.0, -0.0, 0.5, 1e308, -1e308, 3.40282e+38, 3.5e+38,
               float('inf'), float('-inf'), float('nan')]
EDGE_TEXT = ['', ' ', 'null', 'None', 'true', '0', '-1', '1.5', 'NaN', '\x00',
             'in:', '!', '!in:', ',', ',,', 'CUSTOM_', 'CUSTOM_X', 'VCPU', 'MEMORY_MB',
             'HW_CPU_X86_AVX', '\ud800', '\udfff', '\u202e', '\u0130', 'ß', '日本',
             '💥', 'a' * 256, 'A' * 300, '%00', '%', '../', "'; DROP TABLE x; --",
             '00000000-0000-0000-0000-000000000000']

# lone surrogates included on purpose: JSON can carry them ("\ud800")
TEXT = st.one_of(st.sampled_from(EDGE_TEXT),
                 st.text(st.characters(codec=None), max_size=40),
                 st.text('ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789', max_size=30))
INTS = st.one_of(st.sampled_from(EDGE_INTS), st.integers(-5, 70000),
                 st.integers())
FLOATS = st.one_of(st.sampled_from(EDGE_FLOATS), st.floats())

SCALARS = st.one_of(st.none(), st.booleans(), INTS, FLOATS, TEXT)


@functools.cache
def any_json(max_leaves=12):
    """Any JSON value (NaN/Infinity included: Python's parser accepts them)."""
    return st.recursive(
        SCALARS,
        lambda inner: st.one_of(st.lists(inner, max_size=4),
                                st.dictionaries(TEXT, inner, max_size=4)),
        max_leaves=max_leaves)


def dumps(value):
    """Encode like a careless client: NaN allowed, lone surrogates escaped."""
    return json.dumps(value, allow_nan=True).encode('utf-8')


# bodies that are not JSON at all, or are JSON only a parser's limits stop
RAW_BODIES = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b'', b'{', b'[', b'}', b'{"a":', b'nul', b'\xff\xfe',
                     b'{"a": 1, "a": 2}', b'"\\ud800"', b'1e999999',
                     b'\xef\xbb\xbf{}', b'{"\x00": 1}']),
    st.integers(1000, 200000).map(lambda n: b'[' * n + b']' * n),
    st.integers(1000, 200000).map(lambda n: b'{"a":' * n + b'1' + b'}' * n),
    st.integers(1000, 5000).map(lambda n: (b'[' * n)),
)


def huge_json(limit):
    """A body just under or over the ``limit`` in bytes (valid JSON either way)."""
    return st.sampled_from([limit - 64, limit - 1, limit, limit + 1, 4 * limit]).map(
        lambda n: ('{"name": "%s"}' % ('x' * max(n - 12, 0))).encode())


def _key(schema):
    return json.dumps(schema, sort_keys=True)


_CACHE = {}


def from_schema(schema):
    """Instances (mostly valid) of the JSON ``schema`` subset our APIs use (built once)."""
    key = ('valid', _key(schema))
    if key not in _CACHE:
        _CACHE[key] = _from_schema(schema)
    return _CACHE[key]


def _from_schema(schema):
    if 'enum' in schema:
        return st.sampled_from(schema['enum'])
    for key in ('anyOf', 'oneOf'):
        if key in schema and 'type' not in schema and 'properties' not in schema:
            return st.one_of([from_schema(s) for s in schema[key]])
    types = schema.get('type')
    if isinstance(types, list):
        return st.one_of([from_schema(dict(schema, type=t)) for t in types])
    if types == 'null':
        return st.none()
    if types == 'boolean':
        return st.booleans()
    if types == 'integer':
        low, high = schema.get('minimum'), schema.get('maximum')
        return st.one_of(st.integers(low, high if high is not None else 10 ** 6),
                         st.sampled_from([v for v in (low, high) if v is not None]
                                         or [0]))
    if types == 'number':
        return st.one_of(st.floats(0, 64), st.sampled_from([1.0, 16.0, 0.0]))
    if types == 'string':
        return _string(schema)
    if types == 'array':
        items = from_schema(schema.get('items', {'type': 'string'}))
        return st.lists(items, min_size=schema.get('minItems', 0),
                        max_size=max(schema.get('minItems', 0), 3))
    if types == 'object' or 'properties' in schema:
        return _object(schema)
    return any_json(4)


def _string(schema):
    if schema.get('format') == 'uuid':
        return st.uuids().map(str)
    if 'pattern' in schema:
        return _regex(schema['pattern']).filter(
            lambda s: len(s) <= schema.get('maxLength', 255))
    return st.text(st.characters(codec='utf-8'), min_size=schema.get('minLength', 0),
                   max_size=min(schema.get('maxLength', 20), 20))


_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'
_KNOWN_CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF', 'CUSTOM_FUZZ',
                  'CUSTOM_NEW', 'INSTANCE', 'MIGRATION']
# cheap stand-ins for the patterns our schemas use (from_regex is slow)
_PATTERNS = {
    '^[A-Z0-9_]+$': st.one_of(st.sampled_from(_KNOWN_CLASSES),
                              st.text(_UPPER, min_size=1, max_size=12)),
    '^CUSTOM_[A-Z0-9_]+$': st.one_of(st.sampled_from(['CUSTOM_FUZZ', 'CUSTOM_NEW']),
                                     st.text(_UPPER, min_size=1, max_size=12).map(
                                         lambda s: 'CUSTOM_' + s)),
    '^[0-9a-fA-F-]{36}$': st.one_of(st.sampled_from([
        'a0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002',
        'a0000000-0000-4000-8000-000000000003', 'c0000000-0000-4000-8000-000000000001']),
        st.uuids().map(str)),
}


@functools.cache
def _regex(pattern):
    if pattern in _PATTERNS:
        return _PATTERNS[pattern]
    return st.from_regex(pattern, fullmatch=True)


@st.composite
def _object(draw, schema):
    out = {}
    props = schema.get('properties', {})
    required = set(schema.get('required', ()))
    for name, sub in sorted(props.items()):
        if name in required or draw(st.booleans()):
            out[name] = draw(from_schema(sub))
    patterns = schema.get('patternProperties', {})
    extra = schema.get('additionalProperties')
    for pattern, sub in sorted(patterns.items()):
        count = draw(st.integers(schema.get('minProperties', 0) and 1, 2))
        for _ in range(count):
            key = draw(_regex(pattern))
            out[key] = draw(from_schema(sub))
    if isinstance(extra, dict):
        names = schema.get('propertyNames', {'type': 'string', 'maxLength': 20})
        for _ in range(draw(st.integers(schema.get('minProperties', 0), 2))):
            out[draw(from_schema(dict(names, type='string')))] = draw(from_schema(extra))
    return out


def _mutate(draw, value):
    """``value`` with one hostile change somewhere in its tree."""
    kind = draw(_KINDS)
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        out = dict(value)
        if kind == 'drop':
            del out[key]
        else:
            out[key] = _mutate(draw, value[key])
        return out
    if isinstance(value, list) and value and draw(st.booleans()):
        index = draw(st.integers(0, len(value) - 1))
        out = list(value)
        out[index] = _mutate(draw, value[index])
        return out
    if kind == 'add' and isinstance(value, dict):
        return dict(value, **{draw(TEXT): draw(any_json(3))})
    if kind == 'wrap':
        return draw(st.sampled_from([[value], {'x': value}, [value, value]]))
    if kind == 'retype' and isinstance(value, (int, float)) and not isinstance(value, bool):
        return draw(st.one_of(st.just(str(value)), st.just(float(value)), INTS, FLOATS))
    return draw(SCALARS if kind != 'replace' else any_json(4))


_KINDS = st.sampled_from(['replace', 'drop', 'add', 'retype', 'wrap'])


@st.composite
def mutated(draw, strategy, times=1):
    """A value of ``strategy`` with ``times`` hostile changes."""
    value = draw(strategy)
    for _ in range(times):
        value = _mutate(draw, value)
    return value


def neighbourhood(schema):
    """A valid instance of ``schema``, a mutated one, or anything at all (built once)."""
    key = ('near', _key(schema))
    if key not in _CACHE:
        valid = from_schema(schema)
        _CACHE[key] = st.one_of(valid, mutated(valid), mutated(valid, 2), any_json(8))
    return _CACHE[key]
