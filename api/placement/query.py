"""Parsers of the query-string grammars shared by provider listing and candidates.

Each parser takes the raw string value(s) of one key and returns plain Python
values or :class:`objects.candidates.request.RequestGroup`; bad input is a
:class:`fault.BadRequest` that names the key and the offending value.  Names
are checked against the database separately (:func:`check_names`), after
all syntax checks, as Placement does.
"""

import uuid as uuid_lib

from api.placement import errors, fault, microversion
from common import exception
from objects.candidates import request as candidates_request
from objects.placement import resource_class as rc_obj
from objects.placement import trait as trait_obj

_IN = 'in:'


def normalize_uuid(value):
    """The canonical dashed lower-case form of a UUID-like string, or None."""
    if not isinstance(value, str):
        return None
    try:
        return str(uuid_lib.UUID(value))
    except ValueError:
        return None


def parse_uuid(value, key):
    """A UUID-like query value (surrounding whitespace ignored), normalised."""
    found = normalize_uuid(value.strip())
    if found is None:
        raise fault.BadRequest(
            "Invalid query string parameters: Expected '%s' parameter to be a "
            "format of uuid. Got: %s" % (key, value))
    return found


def parse_in_tree(value, key='in_tree'):
    """``in_tree`` / ``in_treeN``: one UUID-like value -> the dashed uuid."""
    return parse_uuid(value, key)


def parse_resources(value, key='resources'):
    """``RC:AMOUNT[,RC:AMOUNT...]`` -> {class name: amount}; the last amount wins."""
    if not value or not value.strip():
        raise fault.BadRequest(
            "Badly formed %s parameter. Expected %s query string parameter in "
            "form: ?%s=VCPU:2,MEMORY_MB:1024. Got: empty string." % (key, key, key))
    result = {}
    for item in value.split(','):
        # Placement names the bad item (an empty one after a trailing comma
        # is "Got: ."), not the whole value
        parts = item.split(':')
        if len(parts) != 2 or not parts[0].strip():
            raise fault.BadRequest(
                "Badly formed %s parameter. Expected %s query string parameter "
                "in form: ?%s=VCPU:2,MEMORY_MB:1024. Got: %s."
                % (key, key, key, item))
        name, amount = parts[0].strip(), parts[1]
        try:
            amount = int(amount)
        except ValueError:
            raise fault.BadRequest(
                "Requested resource %s expected positive integer amount. Got: %s."
                % (name, parts[1].strip()))
        if amount < 1:
            raise fault.BadRequest(
                "Requested resource %s requires amount >= 1. Got: %d."
                % (name, amount))
        result[name] = amount
    return result


def _form(allow_forbidden):
    return 'HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden else 'HW_CPU_X86_VMX,CUSTOM_MAGIC'


def _trait_items(value, key, allow_forbidden):
    """Split a comma list of trait terms; an empty item (or a lone '!') is 400.

    The expected form shows '!' only where forbidden traits are allowed, as
    Placement's text does.
    """
    items = [item.strip() for item in value.split(',')]
    if any(not item.lstrip('!') for item in items):
        raise fault.BadRequest(
            "Invalid query string parameters: Expected '%s' parameter value of "
            "the form: %s. Got an empty trait name in: %s"
            % (key, _form(allow_forbidden), value))
    return items


def parse_required(values, version, key='required'):
    """``required`` occurrences -> (required: list of any-of sets, forbidden: set).

    ``!TRAIT`` from 1.22 (``!!X`` is ``!X``); ``in:A,B`` and repetition (ANDed)
    from 1.39; below 1.39 only the last occurrence counts.
    """
    if isinstance(values, str):
        values = [values]
    if not version.matches(microversion.ANY_OF_TRAITS):
        values = values[-1:]
    required: list[set[str]] = []
    forbidden: set[str] = set()
    allow_forbidden = version.matches(microversion.FORBIDDEN_TRAITS)
    for raw in values:
        value = raw.strip()
        if value.startswith(_IN):
            if not version.matches(microversion.ANY_OF_TRAITS):
                raise fault.BadRequest(
                    "Invalid query string parameters: The format "
                    "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since "
                    "microversion %s. Got: %s" % (microversion.ANY_OF_TRAITS, raw))
            items = _trait_items(value[len(_IN):], key, allow_forbidden)
            if any(item.startswith('!') for item in items):
                raise fault.BadRequest(
                    "Invalid query string parameters: Forbidden traits are not "
                    "supported inside an 'in:' list of '%s'. Got: %s" % (key, raw))
            _add_any_of(required, set(items))
            continue
        for item in _trait_items(value, key, allow_forbidden):
            if item.startswith('!'):
                if not allow_forbidden:
                    # forbidden traits come with 1.22: before, '!' is a bad form
                    raise fault.BadRequest(
                        "Invalid query string parameters: Expected '%s' "
                        "parameter value of the form: %s. Got: %s"
                        % (key, _form(False), raw))
                forbidden.add(item.lstrip('!'))
            else:
                _add_any_of(required, {item})
    return required, forbidden


def _add_any_of(required, any_of):
    if any_of not in required:
        required.append(any_of)


def parse_root_required(value, key='root_required'):
    """``root_required``: the 1.22 grammar (no ``in:``) -> (required set, forbidden set).

    A trait both required and forbidden is 400 ``placement.query.bad_value``.
    """
    if value.strip().startswith(_IN):
        raise fault.BadRequest(
            "Invalid query string parameters: The 'in:' prefix is not supported "
            "in '%s'. Got: %s" % (key, value))
    required, forbidden = set(), set()
    for item in _trait_items(value.strip(), key, True):
        if item.startswith('!'):
            forbidden.add(item.lstrip('!'))
        else:
            required.add(item)
    conflict = required & forbidden
    if conflict:
        raise fault.BadRequest(
            "Conflicting required and forbidden traits found in %s: %s"
            % (key, ', '.join(sorted(conflict))), code=errors.QUERY_BAD_VALUE)
    return required, forbidden


def _uuid_list(text, key, raw):
    found = [normalize_uuid(item) for item in text.split(',')]
    if not found or None in found:
        raise fault.BadRequest(
            "Invalid query string parameters: Expected '%s' parameter to contain "
            "valid UUID(s). Got: %s" % (key, raw))
    return set(found)


def parse_member_of(values, version, key='member_of'):
    """``member_of`` occurrences -> (member_of: list of any-of sets, forbidden set).

    ``UUID`` or ``in:UUID,...``; ``!UUID`` and ``!in:UUID,...`` from 1.32;
    repetition (ANDed) from 1.24.  Uuids come back dashed and lower-case.
    """
    if isinstance(values, str):
        values = [values]
    if len(values) > 1 and not version.matches(microversion.MULTI_MEMBER_OF):
        raise fault.BadRequest(
            "Multiple %s parameters are not supported before microversion %s."
            % (key, microversion.MULTI_MEMBER_OF))
    member_of, forbidden = [], set()
    for raw in values:
        value = raw
        negative = value.startswith('!')
        if negative:
            if not version.matches(microversion.FORBIDDEN_AGGREGATES):
                raise fault.BadRequest(
                    "Forbidden %s parameters are not supported in the specified "
                    "microversion (from %s). Got: %s"
                    % (key, microversion.FORBIDDEN_AGGREGATES, raw))
            value = value[1:]
        if value.startswith(_IN):
            uuids = _uuid_list(value[len(_IN):], key, raw)
        elif ',' in value:
            raise fault.BadRequest(
                "Multiple values for '%s' must be prefixed with the 'in:' or "
                "'!in:' keyword using the valid microversion. Got: %s" % (key, raw))
        else:
            uuids = _uuid_list(value, key, raw)
        if negative:
            forbidden |= uuids
        elif uuids not in member_of:
            member_of.append(uuids)
    return member_of, forbidden


def _as_list(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def build_group(version, suffix='', resources=None, required=None,
                member_of=None, in_tree=None):
    """One RequestGroup from the raw values of its keys (lists for repeatable ones).

    ``resources`` and ``in_tree`` are single strings; ``required`` and
    ``member_of`` are a string or a list of the occurrences.
    """
    group = candidates_request.RequestGroup(suffix=suffix)
    if resources is not None:
        group.resources = parse_resources(resources, 'resources' + suffix)
    if required is not None:
        group.required, group.forbidden = parse_required(
            _as_list(required), version, 'required' + suffix)
    if member_of is not None:
        group.member_of, group.forbidden_aggs = parse_member_of(
            _as_list(member_of), version, 'member_of' + suffix)
    if in_tree is not None:
        group.in_tree = parse_in_tree(in_tree, 'in_tree' + suffix)
    return group


def check_names(ctx, groups, extra_traits=(), may_lag=False):
    """400 unless every class and trait named by ``groups`` exists.

    ``extra_traits`` adds request-wide names (e.g. ``root_required``).
    ``may_lag``: for a read that may lag, looked up where it runs (the
    replica, the primary for a name the replica does not know).
    Returns ({class name: id}, {trait name: id}) for callers that want ids.
    """
    classes, traits = set(), set(extra_traits)
    for group in groups:
        classes |= set(group.resources)
        traits |= group.trait_names
    try:
        lookup = rc_obj.ids_by_name_may_lag if may_lag else rc_obj.ids_by_name
        class_ids = lookup(ctx, classes) if classes else {}
    except exception.ResourceClassNotFound as exc:
        raise fault.BadRequest(
            'Invalid resource class in resources parameter: %s' % exc.message)
    try:
        lookup = trait_obj.ids_by_name_may_lag if may_lag else trait_obj.ids_by_name
        trait_ids = lookup(ctx, traits) if traits else {}
    except exception.TraitNotFound as exc:
        raise fault.BadRequest(
            'Invalid query string parameters: %s' % exc.message)
    return class_ids, trait_ids


def multi(req, key):
    """Every value of a query key, in request order (empty list when absent)."""
    return req.GET.getall(key)
