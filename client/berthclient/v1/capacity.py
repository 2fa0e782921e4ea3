"""``openstack berth capacity``: GET /capacity, how many more of a request fit.

The answer says how many more consumers of exactly the requested amounts
fit in the cloud (``fits``), in each aggregate and, with ``--providers N``,
on the N root providers that would hold the most.
"""

from osc_lib import exceptions
from osc_lib.cli import format_columns
from osc_lib.command import command

from berthclient.v1 import args


class FitsColumn(format_columns.ListColumn):
    """[{"uuid", "fits"}]: ``<uuid>=<fits>`` per entry in a table, the list in json."""

    def human_readable(self):
        return ', '.join('%s=%s' % (agg.get('uuid'), agg.get('fits'))
                         for agg in self._value or [])


def query(parsed):
    """The query string of GET /capacity for the parsed arguments."""
    resources = args.amounts(parsed.resources, '--resource', minimum=1)
    if not resources:
        raise exceptions.CommandError('at least one --resource RC=AMOUNT is required')
    params = [('resources', ','.join('%s:%d' % item for item in sorted(resources.items())))]
    params += [('required', value) for value in parsed.required or ()]
    params += [('member_of', value) for value in parsed.member_of or ()]
    if parsed.in_tree:
        params.append(('in_tree', parsed.in_tree))
    if parsed.root_required:
        params.append(('root_required', ','.join(parsed.root_required)))
    if parsed.providers is not None:
        params.append(('providers', str(parsed.providers)))
    return params


class ShowCapacity(command.ShowOne):
    """Show how many more consumers of these amounts fit (GET /capacity)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--resource', dest='resources', action='append',
                            metavar='<resource-class>=<amount>',
                            help='Amount of a resource class one consumer needs '
                                 '(repeat for several)')
        parser.add_argument('--required', action='append', metavar='<trait>',
                            help='Required trait, !TRAIT forbidden (repeat for several)')
        parser.add_argument('--member-of', action='append', metavar='<aggregates>',
                            help='Aggregate UUID or in:A,B (repeat for several)')
        parser.add_argument('--in-tree', metavar='<provider-uuid>',
                            help='Only providers in the tree of this provider')
        parser.add_argument('--root-required', action='append', metavar='<trait>',
                            help='Trait the root provider must (or, with !, must not) have')
        parser.add_argument('--providers', type=int, metavar='<n>',
                            help='Also list the N root providers that would hold the most')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.berth
        body = client.request('GET', '/capacity', params=query(parsed_args)).json()
        columns = ('resources', 'fits', 'aggregates')
        values = [format_columns.DictColumn(body.get('resources') or {}), body.get('fits'),
                  FitsColumn(body.get('aggregates') or [])]
        if 'providers' in body:
            columns += ('providers',)
            values.append(FitsColumn(body['providers']))
        return columns, values
