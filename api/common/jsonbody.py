"""Parsing of JSON request bodies, shared by both APIs: strict JSON, bounded nesting,
never a crash."""

import math

from oslo_serialization import jsonutils

# deeper than any body either API defines; a deeper one is hostile
MAX_DEPTH = 64


def _no_constant(name):
    # Python's json reads NaN, Infinity and -Infinity, which JSON has not:
    # stored, they come back as bare NaN and break every strict client
    raise ValueError('%s is not a JSON number' % name)


def _finite(text):
    number = float(text)
    if not math.isfinite(number):   # 1e999 reads as Infinity
        raise ValueError('%s is out of the range of a JSON number' % text[:50])
    return number


def loads(body):
    """The parsed ``body``; ValueError for malformed or too deeply nested JSON,
    NaN/Infinity, or a string holding a lone surrogate (not Unicode text) or NUL."""
    try:
        data = jsonutils.loads(body, parse_constant=_no_constant,
                                parse_float=_finite)
    except RecursionError:
        raise ValueError('JSON nested more than %d levels deep' % MAX_DEPTH)
    _check(data)
    return data


def _check(data):
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if isinstance(value, dict):
            for key in value:
                _check_text(key)
            value = list(value.values())
        if isinstance(value, list):
            if depth > MAX_DEPTH:
                raise ValueError('JSON nested more than %d levels deep' % MAX_DEPTH)
            stack.extend((item, depth + 1) for item in value)


def _check_text(text):
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        raise ValueError('a string holds a lone surrogate (\\ud800-\\udfff), '
                         'which is not Unicode text')
    if '\x00' in text:
        # PostgreSQL refuses NUL in text (a 500 there, stored on the others):
        # refused in every string and key, whatever field it is for
        raise ValueError('a string holds a NUL character (\\u0000), which '
                         'no text field accepts')
