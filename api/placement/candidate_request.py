"""The request language of GET /allocation_candidates, parsed into a ResourceRequest.

Shared by the GET /allocation_candidates handler and POST /claims (which
turns its JSON body into this query form), so both speak one language with
the same 400s.
"""

import re

from api.placement import errors, fault, microversion, query, validation
from api.placement.schemas import allocation_candidate as schema
from objects.candidates import request as candidates_request

MAX_LIMIT = 2 ** 31 - 1
_GROUP_KEY = re.compile('^(%s)(.*)$' % '|'.join(schema.GROUP_KEYS))


def _root_required(req):
    values = query.multi(req, 'root_required')
    if not values:
        return set(), set()
    if len(values) > 1:
        raise fault.BadRequest(
            "Query parameter 'root_required' may be specified only once.",
            code=errors.QUERY_DUPLICATE_KEY)
    return query.parse_root_required(values[0])


def _same_subtree(req, suffixes):
    found = []
    for value in query.multi(req, 'same_subtree'):
        names = [name.strip() for name in value.split(',')]
        if any(not name for name in names):
            raise fault.BadRequest(
                "Empty string (unsuffixed group) can not be specified in "
                "`same_subtree`. Got: %s" % value, code=errors.QUERY_BAD_VALUE)
        unknown = [name for name in names if name not in suffixes]
        if unknown:
            raise fault.BadRequest(
                "Real suffixes should be specified in `same_subtree`: %s not "
                "found in %s." % (unknown, list(suffixes)),
                code=errors.QUERY_BAD_VALUE)
        found.append(names)
    return found


def _suffixes(params):
    """{suffix: {group key: True}} for every group key of the request."""
    groups: dict[str, set[str]] = {}
    for key in params:
        match = _GROUP_KEY.match(key)
        if match:
            groups.setdefault(match.group(2), set()).add(match.group(1))
    return groups


def _build_groups(req, keys_by_suffix):
    groups = []
    for suffix in sorted(keys_by_suffix, key=lambda s: (s != '', s)):
        keys = keys_by_suffix[suffix]

        def one(name, keys=keys, suffix=suffix):
            if name not in keys:
                return None
            values = query.multi(req, name + suffix)
            return values[-1] if name in ('resources', 'in_tree') else values

        groups.append(query.build_group(
            req.version, suffix=suffix, resources=one('resources'),
            required=one('required'), member_of=one('member_of'),
            in_tree=one('in_tree')))
    return groups


def _check_structure(req, groups, same_subtree, key_order):
    """Placement's checks of which groups need resources, in its order and words.

    ``key_order`` lists the suffixes in query-string order (orphans are named
    in it).
    """
    in_subtree = {name for names in same_subtree for name in names}
    if req.version.matches(microversion.SAME_SUBTREE):
        if not any(g.resources for g in groups):
            raise fault.BadRequest(
                'There must be at least one resources or resources[$S] '
                'parameter.', code=errors.QUERY_MISSING_VALUE)
        for g in groups:
            if g.resources:
                continue
            if not g.suffix:
                raise fault.BadRequest(
                    'Resourceless unsuffixed group is not supported: the '
                    'unsuffixed `required`, `member_of` or `in_tree` need '
                    '`resources`.', code=errors.QUERY_BAD_VALUE)
            if g.suffix not in in_subtree:
                raise fault.BadRequest(
                    'Resourceless suffixed group request should be specified '
                    'in `same_subtree` query param: bad group(s) - [%s].'
                    % g.suffix, code=errors.QUERY_BAD_VALUE)
        return
    ordered = sorted(groups, key=lambda g: key_order.index(g.suffix))
    orphans = ['required' + g.suffix for g in ordered if g.required and not g.resources]
    if orphans:
        raise fault.BadRequest(
            'All traits parameters must be associated with resources.  Found '
            'the following orphaned traits keys: %s' % ', '.join(orphans))
    orphans = ['member_of' + g.suffix for g in ordered
               if not g.resources and (g.member_of or g.forbidden_aggs)]
    if orphans:
        raise fault.BadRequest(
            'All member_of parameters must be associated with resources. Found '
            'the following orphaned member_of keys: %s' % ', '.join(orphans))
    if not all(g.resources for g in groups):
        raise fault.BadRequest('All request groups must specify resources.')
    if not groups:
        raise fault.BadRequest(
            'At least one request group (`resources` or `resources{$S}`) is '
            'required.')


def _check_conflicts(req, groups):
    if not req.version.matches(microversion.FORBIDDEN_TRAITS):
        return
    for g in groups:
        for any_of in g.required:
            if any_of <= g.forbidden:
                raise fault.BadRequest(
                    "Conflicting required and forbidden traits found in the "
                    "following traits keys: %s: (%s)"
                    % ('required' + g.suffix, ', '.join(sorted(any_of))))


def parse_request(req):
    """The ResourceRequest of a GET /allocation_candidates query string (2.12)."""
    # a repeated limit or group_policy is not an error: the first one counts
    params = validation.validate_query(req, schema.list_query(req.version),
                                       first=('limit', 'group_policy'))
    root_required, root_forbidden = _root_required(req)
    keys_by_suffix = _suffixes(params)
    same_subtree = _same_subtree(req, list(keys_by_suffix))
    groups = _build_groups(req, keys_by_suffix)
    _check_structure(req, groups, same_subtree, list(keys_by_suffix))
    _check_conflicts(req, groups)
    policy_value = params.get('group_policy')
    if len([g for g in groups if g.suffix]) > 1 and policy_value is None:
        raise fault.BadRequest(
            'The "group_policy" parameter is required when specifying more '
            'than one "resources{N}" parameter.')
    limit = params.get('limit')
    return candidates_request.ResourceRequest(
        groups=groups, group_policy=policy_value,
        # no answer is longer than this; a bigger number means "no limit" and
        # must not reach the database, whose integers are 64-bit
        limit=min(int(limit), MAX_LIMIT) if limit is not None else None,
        root_required=root_required, root_forbidden=root_forbidden,
        same_subtree=same_subtree)
