"""``openstack berth claim create``: POST /claims (schedule and claim in one call).

One row per consumer and resource provider it was given: the conductor
searched the candidates, ranked them with the weigher and claimed the best.
"""

import uuid

from osc_lib import exceptions
from osc_lib.cli import format_columns
from osc_lib.command import command

from berthclient.v1 import args

COLUMNS = ('consumer_uuid', 'resource_provider', 'resources', 'project_id',
           'user_id', 'consumer_generation', 'weigher')


def _body(parsed):
    body = {'project_id': parsed.project, 'user_id': parsed.user,
            'resources': args.amounts(parsed.resources, '--resource', minimum=1)}
    if not body['resources']:
        raise exceptions.CommandError('at least one --resource RC=AMOUNT is required')
    consumers = parsed.consumers or [str(uuid.uuid4()) for _ in range(parsed.count or 1)]
    if len(consumers) == 1 and not parsed.count:
        body['consumer_uuid'] = consumers[0]
    else:
        body['consumer_uuids'] = consumers
        body['count'] = parsed.count or len(consumers)
    for key, value in (('consumer_type', parsed.consumer_type),
                       ('required', parsed.required),
                       ('member_of', parsed.member_of),
                       ('in_tree', parsed.in_tree),
                       ('root_required', parsed.root_required),
                       ('weigher', parsed.weigher)):
        if value:
            body[key] = value
    if parsed.distinct_roots:
        body['distinct_roots'] = True
    return body


class CreateClaim(command.Lister):
    """Place consumers on the best candidates and claim them (POST /claims)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--project', required=True, metavar='<project-id>',
                            help='Project the allocations are made for')
        parser.add_argument('--user', required=True, metavar='<user-id>',
                            help='User the allocations are made for')
        parser.add_argument('--resource', dest='resources', action='append',
                            metavar='<resource-class>=<amount>',
                            help='Amount of a resource class each consumer needs '
                                 '(repeat for several)')
        parser.add_argument('--consumer', dest='consumers', action='append',
                            metavar='<uuid>',
                            help='Consumer UUID (repeat for several; default: a new one '
                                 'per --count)')
        parser.add_argument('--count', type=int, metavar='<n>',
                            help='Number of consumers to place, all or nothing')
        parser.add_argument('--consumer-type', metavar='<type>',
                            help='Consumer type, e.g. INSTANCE')
        parser.add_argument('--required', action='append', metavar='<trait>',
                            help='Required trait, !TRAIT forbidden, in:T1,T2 any of '
                                 '(repeat for several)')
        parser.add_argument('--member-of', action='append', metavar='<aggregates>',
                            help='Aggregate UUID, in:A,B any of, !A not in '
                                 '(repeat for several)')
        parser.add_argument('--in-tree', metavar='<provider-uuid>',
                            help='Only providers in the tree of this provider')
        parser.add_argument('--root-required', action='append', metavar='<trait>',
                            help='Trait the root provider must (or, with !, must not) have')
        parser.add_argument('--weigher', metavar='<name>',
                            help='spread, pack or random (default: the server\'s)')
        parser.add_argument('--distinct-roots', action='store_true',
                            help='Every consumer on its own root provider')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.berth
        answer = client.request('POST', '/claims', json=_body(parsed_args)).json()
        rows = []
        for claim in answer.get('claims', []):
            for rp, alloc in sorted(claim.get('allocations', {}).items()):
                rows.append((claim['consumer_uuid'], rp,
                             format_columns.DictColumn(alloc.get('resources', {})),
                             claim.get('project_id'), claim.get('user_id'),
                             claim.get('consumer_generation'), answer.get('weigher')))
        return COLUMNS, rows
