"""Argument helpers shared by the commands: NAME=AMOUNT pairs and their columns."""

from osc_lib import exceptions
from osc_lib.cli import format_columns


def amounts(pairs, option, minimum=0):
    """{NAME: int} of repeated ``NAME=AMOUNT`` values; CommandError for a bad one."""
    found = {}
    for pair in pairs or ():
        name, sep, amount = pair.partition('=')
        try:
            value = int(amount)
        except ValueError:
            value = None
        if not sep or not name or value is None or value < minimum:
            raise exceptions.CommandError(
                '%s takes NAME=AMOUNT with an integer AMOUNT >= %d, not %r'
                % (option, minimum, pair))
        found[name] = value
    return found


class LimitsColumn(format_columns.DictColumn):
    """{name: {"limit", "usage"}}: ``VCPU=6/20`` in a table, the object in json."""

    def human_readable(self):
        return ', '.join('%s=%s/%s' % (name, entry.get('usage'),
                                       'none' if entry.get('limit') is None
                                       else entry['limit'])
                         for name, entry in sorted((self._value or {}).items()))
