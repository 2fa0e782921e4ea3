"""``openstack berth quota show|set|delete``: /quotas/{project_id}.

``show`` says whether the limits bite (``enforced``) and where they come
from (``source``); ``set`` changes only the limits it names and prints the
API's warning on stderr when the limits it stored are not enforced.
"""

from osc_lib.command import command

from berthclient.v1 import args

COLUMNS = ('project_id', 'user_id', 'source', 'enforced', 'resources', 'consumers')


def _scope_parser(parser):
    parser.add_argument('project', metavar='<project-id>', help='Project ID')
    parser.add_argument('--user', metavar='<user-id>',
                        help='The limits of this user inside the project')
    return parser


def _params(parsed):
    return {'user_id': parsed.user} if parsed.user else {}


def _url(parsed):
    return '/quotas/%s' % parsed.project


def _show(body):
    columns = COLUMNS + tuple(k for k in ('views', 'warning') if k in body)
    values = []
    for column in columns:
        value = body.get(column)
        if column in ('resources', 'consumers', 'views'):
            value = args.LimitsColumn(value or {})
        values.append(value)
    return columns, values


def _limits(section):
    return {name: entry['limit'] for name, entry in (section or {}).items()
            if entry.get('limit') is not None}


class ShowQuota(command.ShowOne):
    """Show a project's (or user's) limits, usages and whether they are enforced."""

    def get_parser(self, prog_name):
        return _scope_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        client = self.app.client_manager.berth
        body = client.request('GET', _url(parsed_args), params=_params(parsed_args)).json()
        return _show(body)


class SetQuota(command.ShowOne):
    """Set limits of a project (or user); the limits not named keep their value."""

    def get_parser(self, prog_name):
        parser = _scope_parser(super().get_parser(prog_name))
        parser.add_argument('--resource', dest='resources', action='append',
                            metavar='<resource-class>=<limit>',
                            help='Limit of a resource class (repeat for several)')
        parser.add_argument('--consumers', action='append', metavar='<type>=<limit>',
                            help='Limit of consumers of a type, e.g. INSTANCE=10')
        parser.add_argument('--replace', action='store_true',
                            help='Drop the limits not named instead of keeping them')
        return parser

    def take_action(self, parsed_args):
        client = self.app.client_manager.berth
        url, params = _url(parsed_args), _params(parsed_args)
        resources = args.amounts(parsed_args.resources, '--resource')
        consumers = args.amounts(parsed_args.consumers, '--consumers')
        if not parsed_args.replace:
            current = client.request('GET', url, params=params).json()
            resources = dict(_limits(current.get('resources')), **resources)
            consumers = dict(_limits(current.get('consumers')), **consumers)
        body = client.request('PUT', url, params=params,
                              json={'resources': resources,
                                    'consumers': consumers}).json()
        if body.get('warning'):
            self.app.stderr.write('WARNING: %s\n' % body['warning'])
        return _show(body)


class DeleteQuota(command.Command):
    """Delete every limit of a project (or of one user in it)."""

    def get_parser(self, prog_name):
        return _scope_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        client = self.app.client_manager.berth
        client.request('DELETE', _url(parsed_args), params=_params(parsed_args))
