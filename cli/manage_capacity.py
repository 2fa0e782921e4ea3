"""``berth-manage capacity``: how many more consumers of one request fit (GET /capacity).

Reads the database directly, with the very code of the endpoint
(api.placement.handlers.capacity.answer), and prints the same JSON.
"""

import json
from typing import Any

from webob import multidict

from api.common import errors as api_errors
from api.placement.handlers import capacity
from common import context as berth_context
from objects import database


def _params(args: Any) -> multidict.MultiDict:
    """The GET /capacity query parameters the command line stands for."""
    params = multidict.MultiDict()
    params.add('resources', args.resources)
    for key, values in (('required', args.required), ('member_of', args.member_of)):
        for value in values or ():
            params.add(key, value)
    if args.in_tree:
        params.add('in_tree', args.in_tree)
    if args.providers is not None:
        params.add('providers', args.providers)
    return params


def _capacity(conf: Any) -> int:
    db = database.open_database(conf)
    try:
        body = capacity.answer(berth_context.admin_context(db), _params(conf.category))
    except api_errors.ApiError as exc:
        print('berth-manage capacity: %s (%s)' % (exc.detail, exc.code))
        return 1
    finally:
        db.dispose()
    print(json.dumps(body, indent=2, sort_keys=True))
    return 0


def add_capacity_command(subparsers: Any) -> None:
    """The ``capacity`` command."""
    cmd = subparsers.add_parser(
        'capacity', help='how many more consumers of one resource request fit')
    cmd.add_argument('--resources', required=True, metavar='CLASS:N,...',
                     help='the request, e.g. VCPU:4,MEMORY_MB:8192')
    cmd.add_argument('--required', action='append', metavar='TRAITS',
                     help="required traits as GET /allocation_candidates' required= "
                          '(repeatable)')
    cmd.add_argument('--member-of', dest='member_of', action='append', metavar='AGGS',
                     help="aggregates as its member_of= (repeatable)")
    cmd.add_argument('--in-tree', dest='in_tree', metavar='RP_UUID',
                     help='count only the tree of this provider')
    cmd.add_argument('--providers', metavar='N',
                     help='also list the N root providers holding the most')
    cmd.set_defaults(func=_capacity)
