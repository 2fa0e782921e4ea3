"""Query string of GET /allocation_candidates, by microversion."""

from typing import Any

from api.placement import microversion

_STRING = {'type': 'string'}
_STRINGS = {'anyOf': [_STRING, {'type': 'array', 'items': _STRING}]}

# group suffixes: positive integers (1.25), then short strings (1.33)
NUMERIC_SUFFIX = '[1-9][0-9]*'
STRING_SUFFIX = '[a-zA-Z0-9_-]{1,64}'

GROUP_KEYS = ('resources', 'required', 'member_of', 'in_tree')


def suffix_pattern(version):
    return STRING_SUFFIX if version.matches(microversion.STRING_SUFFIXES) else NUMERIC_SUFFIX


def list_query(version):
    """The JSON schema of the query dict (repeated keys are lists) at ``version``.

    From 1.25 the group keys are patterns that take an optional suffix
    (``^resources([1-9][0-9]*)?$``), as Placement writes them: its 400 for
    an unknown key lists these regexes.  Before, an unknown key is "'x' was
    unexpected" (no patterns at all, not an empty set of them).
    """
    props: dict[str, Any] = {'resources': _STRING}
    patterns: dict[str, Any] = {}
    if version.matches(microversion.CANDIDATES_LIMIT):
        props['limit'] = {'type': 'string', 'pattern': '^[1-9][0-9]*$'}
    if version.matches(microversion.CANDIDATES_REQUIRED):
        props['required'] = _STRINGS
    if version.matches(microversion.CANDIDATES_MEMBER_OF):
        props['member_of'] = _STRINGS
    if version.matches(microversion.GRANULAR):
        suffix = suffix_pattern(version)
        props['group_policy'] = {'type': 'string', 'enum': ['none', 'isolate']}
        group_keys = ['resources', 'required', 'member_of']
        if version.matches(microversion.CANDIDATES_IN_TREE):
            group_keys.append('in_tree')
        for key in group_keys:
            props.pop(key, None)
            patterns['^%s(%s)?$' % (key, suffix)] = (
                _STRINGS if key in ('required', 'member_of') else _STRING)
    if version.matches(microversion.ROOT_REQUIRED):
        props['root_required'] = _STRINGS
    if version.matches(microversion.SAME_SUBTREE):
        props['same_subtree'] = _STRINGS
    schema: dict[str, Any] = {'type': 'object', 'properties': props, 'additionalProperties': False}
    if patterns:
        schema['patternProperties'] = patterns
    if not version.matches(microversion.GRANULAR):
        schema['required'] = ['resources']
    return schema
