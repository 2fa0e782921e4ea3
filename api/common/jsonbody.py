"""Parsing of JSON request bodies, shared by both APIs: bounded nesting, never a crash."""

from oslo_serialization import jsonutils

# deeper than any body either API defines; a deeper one is hostile
MAX_DEPTH = 64


def loads(body):
    """The parsed ``body``; ValueError for malformed or too deeply nested JSON."""
    try:
        data = jsonutils.loads(body)
    except RecursionError:
        raise ValueError('JSON nested more than %d levels deep' % MAX_DEPTH)
    if _too_deep(data):
        raise ValueError('JSON nested more than %d levels deep' % MAX_DEPTH)
    return data


def _too_deep(data):
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            if depth > MAX_DEPTH:
                return True
            stack.extend((item, depth + 1) for item in value)
    return False
