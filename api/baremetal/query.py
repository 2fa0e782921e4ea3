"""Query-string parameters of the /v1 collections: fields, booleans, pagination."""

from oslo_utils import strutils

from api.baremetal import fault

MAX_LIMIT = 1000


def fields_param(req, allowed):
    """The ``fields`` query parameter as a list (None when absent); 400 on unknown."""
    value = req.GET.get('fields')
    if value is None:
        return None
    fields = [f.strip() for f in value.split(',') if f.strip()]
    unknown = [f for f in fields if f not in allowed]
    if unknown:
        raise fault.BadRequest('Field(s) "%s" are not valid' % ', '.join(unknown))
    return fields


def bool_param(req, name):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise fault.BadRequest('Invalid value %s for %s: expected a boolean'
                               % (value, name))


def pagination(req, sort_keys, forbidden_keys=()):
    """(limit, marker, sort_key, sort_dir) from the query, checked like Ironic."""
    limit = req.GET.get('limit')
    max_limit = MAX_LIMIT
    if limit is not None:
        try:
            limit = int(limit)
        except ValueError:
            raise fault.BadRequest('Invalid limit %s: must be an integer' % limit)
        if limit <= 0:
            raise fault.BadRequest('Limit must be positive')
        limit = min(limit, max_limit)
    else:
        limit = max_limit
    sort_dir = req.GET.get('sort_dir', 'asc')
    if sort_dir not in ('asc', 'desc'):
        raise fault.BadRequest("Invalid sort direction: %s. Acceptable values are "
                               "'asc' or 'desc'" % sort_dir)
    sort_key = req.GET.get('sort_key', 'id')
    if sort_key in forbidden_keys or sort_key not in sort_keys:
        raise fault.BadRequest('The sort_key value "%s" is an invalid field for '
                               'sorting' % sort_key)
    return limit, req.GET.get('marker'), sort_key, sort_dir


def known_params(req, allowed):
    """400 for a query parameter this list does not know (as Ironic: never ignored)."""
    unknown = sorted(set(req.GET) - set(allowed))
    if unknown:
        raise fault.BadRequest('Unknown argument: "%s"' % ', '.join(unknown))
