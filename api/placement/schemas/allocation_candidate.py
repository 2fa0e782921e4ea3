"""Query string of GET /allocation_candidates, by microversion."""

_STRING = {'type': 'string'}
_STRINGS = {'anyOf': [_STRING, {'type': 'array', 'items': _STRING}]}

# group suffixes: positive integers (1.25), then short strings (1.33)
NUMERIC_SUFFIX = '[1-9][0-9]*'
STRING_SUFFIX = '[a-zA-Z0-9_-]{1,64}'

GROUP_KEYS = ('resources', 'required', 'member_of', 'in_tree')


def suffix_pattern(version):
    return STRING_SUFFIX if version.matches('1.33') else NUMERIC_SUFFIX


def list_query(version):
    """The JSON schema of the query dict (repeated keys are lists) at ``version``."""
    props = {'resources': _STRING}
    patterns = {}
    if version.matches('1.16'):
        props['limit'] = {'type': 'string', 'pattern': '^[1-9][0-9]*$'}
    if version.matches('1.17'):
        props['required'] = _STRINGS
    if version.matches('1.21'):
        props['member_of'] = _STRINGS
    if version.matches('1.25'):
        suffix = suffix_pattern(version)
        props['group_policy'] = {'type': 'string', 'enum': ['none', 'isolate']}
        patterns['^resources%s$' % suffix] = _STRING
        patterns['^required%s$' % suffix] = _STRINGS
        patterns['^member_of%s$' % suffix] = _STRINGS
        if version.matches('1.31'):
            props['in_tree'] = _STRING
            patterns['^in_tree%s$' % suffix] = _STRING
    if version.matches('1.35'):
        props['root_required'] = _STRINGS
    if version.matches('1.36'):
        props['same_subtree'] = _STRINGS
    schema = {'type': 'object', 'properties': props, 'patternProperties': patterns,
              'additionalProperties': False}
    if not version.matches('1.25'):
        schema['required'] = ['resources']
    return schema
