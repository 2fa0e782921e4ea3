"""``berth-manage status``: upgrade readiness checks in the oslo.upgradecheck style.

Each check answers Success, Warning or Failure with details; the command
prints the table and exits with the worst code (0, 1 or 2).
"""

import json
import textwrap
import threading

from oslo_db import exception as db_exc
from oslo_policy import policy as oslo_policy
from oslo_upgradecheck import common_checks, upgradecheck
import prettytable
from sqlalchemy import exc as sa_exc

from api.placement import policy as berth_policy
from cli import manage_conductor, manage_upgrade
from common import context as berth_context
from common import rpc_keys
from objects import database
from objects.legacy import compute_node_migration, online_migrations

Code = upgradecheck.Code
Result = upgradecheck.Result

IN_PROCESS_TRANSPORTS = ('inproc', 'kombu+memory', 'fake')
SHOWN_IDS = 10
# seconds a status check waits for one conductor's (or the broker's) answer
PING_BOUND = 10


def _ids(pairs):
    ids = [str(i) for i, _ in pairs[:SHOWN_IDS]]
    more = len(pairs) - SHOWN_IDS
    return ', '.join(ids) + (' and %d more' % more if more > 0 else '')


class Checks(upgradecheck.UpgradeCommands):
    """berth's upgrade checks; ``check()`` prints the table and returns the code."""

    display_title = 'berth upgrade check results'

    def __init__(self, conf, ring_factory=None, pinger=None):
        super().__init__()
        self.conf = conf
        self._ring_factory = ring_factory or _ring_reader
        self._pinger = pinger or _ping
        self._db = None

    def _database(self):
        if self._db is None:
            self._db = database.open_database(self.conf)
        return self._db

    def close(self):
        if self._db is not None:
            self._db.dispose()

    def _check_schema(self):
        current = database.schema_version(self._database())
        head = database.schema_head()
        if current is None:
            return Result(Code.FAILURE, 'The database is empty: run "berth-manage db sync".')
        pending = database.pending_migrations(self._database())
        if pending and pending[0][1] == manage_upgrade.EXPAND:
            return Result(Code.FAILURE, 'The schema is at %s, the code needs %s: run '
                                        '"berth-manage db sync".' % (current, head))
        if pending:
            return Result(Code.SUCCESS, 'Schema expanded (%s); contract migration(s) %s '
                                        'pending (see "Contract step").'
                          % (current, ', '.join(r for r, _ in pending)))
        return Result(Code.SUCCESS, 'Schema at head (%s).' % head)

    def _expanded(self):
        """The schema is at head, or only contract migrations are pending."""
        db = self._database()
        if database.schema_version(db) is None:
            return False
        pending = database.pending_migrations(db)
        return not pending or pending[0][1] != manage_upgrade.EXPAND

    def _check_online_migrations(self):
        if not self._expanded():
            return Result(Code.FAILURE, 'Not checked: the schema is not at head.')
        ctx = berth_context.admin_context(self._database())
        try:
            left = online_migrations.pending(ctx, self.conf)
            bad = compute_node_migration.unmigratable(ctx, self.conf)
        except ValueError as exc:
            return Result(Code.FAILURE, 'Invalid configuration: %s' % exc)
        left['compute nodes -> providers'] -= len(bad)
        todo = {name: n for name, n in left.items() if n}
        if todo:
            return Result(Code.FAILURE, 'Rows left to migrate: %s. Run "berth-manage db '
                                        'online_data_migrations" until it exits 0.'
                          % ', '.join('%s: %d' % kv for kv in sorted(todo.items())))
        if bad:
            return Result(Code.WARNING, '%d compute node(s) cannot be migrated (ids %s); '
                                        'fix or delete them, then run "berth-manage db '
                                        'online_data_migrations".' % (len(bad), _ids(bad)))
        return Result(Code.SUCCESS, 'All online data migrations are complete.')

    def _members(self):
        ring = self._ring_factory(self.conf)
        try:
            return sorted(ring.members())
        finally:
            ring.stop()

    def _check_ring(self):
        try:
            members = self._members()
        except Exception as exc:  # any tooz backend error is the answer
            return Result(Code.FAILURE, 'Cannot read the conductor group: %s' % exc)
        if not members:
            return Result(Code.FAILURE, 'No conductor is a member of the ring: start '
                                        'berth-conductor (or berth serve).')
        detail = '%d member(s): %s.' % (len(members), ', '.join(members))
        if len(members) == 1:
            return Result(Code.WARNING, detail + ' A single conductor has no standby.')
        return Result(Code.SUCCESS, detail)

    def _check_registry(self):
        """Every registered conductor alive (a Warning names the dead or stopped ones)."""
        if not self._expanded():
            return Result(Code.FAILURE, 'Not checked: the schema is not at head.')
        return manage_conductor.registry_result(self.conf, self._database())

    def _check_compute_gate(self):
        from conductor.rpcapi import gate
        ring = self._ring_factory(self.conf)
        try:
            state = gate.evaluate(ring.describe())
        except Exception as exc:  # any tooz backend error is the answer
            return Result(Code.FAILURE, 'Cannot read the conductor group: %s' % exc)
        finally:
            ring.stop()
        return Result(Code.SUCCESS if state.open else Code.WARNING, state.describe())

    def _check_rpc_key(self):
        """A broker transport needs [rpc] signing_key: every berth process refuses
        to start without one (common.rpc_keys), so say it before any does."""
        url = _transport_url(self.conf)
        reason = rpc_keys.startup_error(self.conf)
        if reason:
            return Result(Code.FAILURE, 'berth-api and the conductors will refuse to '
                                        'start: %s.' % reason)
        if url and rpc_keys.in_process_url(url):
            return Result(Code.SUCCESS, 'In-process transport: no key needed (trust '
                                        'mode "embedded").')
        if not self.conf.rpc.signing_key:
            return Result(Code.WARNING, '[rpc] allow_unsigned = true: RPC messages are '
                                        'not signed and the conductors obey any message '
                                        'on the bus (trust mode "unsigned"); make a key '
                                        'with "%s" and set [rpc] signing_key in every '
                                        'berth process.' % rpc_keys.GENERATE)
        return Result(Code.SUCCESS, '[rpc] signing_key is set (trust mode "signed").')

    def _check_conductors(self):
        url = _transport_url(self.conf)
        if url and url.startswith(IN_PROCESS_TRANSPORTS):
            return Result(Code.WARNING, 'The conductors use an in-process message '
                                        'transport (%s); they can only be reached '
                                        'from inside their process.' % url.split(':')[0])
        # unset means what berth-conductor dials with this file: oslo.messaging's
        # default, RabbitMQ on localhost (only berth serve swaps in its own)
        unset = ('' if url else ' ([DEFAULT] transport_url is unset: dialled oslo.messaging'
                 "'s default rabbit://guest@localhost:5672/, as berth-conductor does with "
                 "this file; berth serve's embedded conductors use an in-process "
                 'transport no other process can reach)')
        try:
            members = self._members()
        except Exception as exc:
            return Result(Code.FAILURE, 'Cannot read the conductor group: %s' % exc)
        if not members:
            return Result(Code.FAILURE, 'No conductor to reach.' + unset)
        down, views = [], {}
        for host in members:
            try:
                views[host] = sorted(self._pinger(self.conf, host)['members'])
            except Exception as exc:  # timeouts, broker errors: all mean unreachable
                down.append('%s (%s)' % (host, exc.__class__.__name__))
        if down:
            return Result(Code.FAILURE, 'Unreachable over RPC: %s.%s'
                          % (', '.join(down), unset))
        differ = sorted(h for h, seen in views.items() if seen != members)
        if differ:
            return Result(Code.WARNING, 'Every conductor answered, but %s see(s) a '
                                        'different ring; it should settle within '
                                        '[coordination] ring_refresh_interval.'
                          % ', '.join(differ))
        return Result(Code.SUCCESS, 'All %d conductor(s) answered ping and see the same '
                                    'ring.' % len(members))

    def _check_contract(self):
        """Whether "berth-manage db contract" is safe: no conductor of an older release."""
        if not self._expanded():
            return Result(Code.FAILURE, 'Not checked: run "berth-manage db sync" first.')
        left = manage_upgrade.pending_contract(
            database.pending_migrations(self._database()))
        try:
            mine, older = manage_upgrade.older_services(self.conf, self._ring_factory)
        except Exception as exc:  # any tooz backend error is the answer
            return Result(Code.FAILURE, 'Cannot read the conductors\' releases: %s' % exc)
        todo = ('contract migration(s) %s pending' % ', '.join(left) if left
                else 'no contract migration pending')
        if older:
            return Result(Code.WARNING, 'Not safe yet (%s): conductor(s) older than %s '
                                        'are running: %s. Upgrade every service, then '
                                        'run "berth-manage db contract".'
                          % (todo, mine, manage_upgrade.describe_older(older)))
        if left:
            return Result(Code.WARNING, 'Safe now: every conductor runs %s; %s: run '
                                        '"berth-manage db contract" once every API '
                                        'process runs it too.' % (mine, todo))
        return Result(Code.SUCCESS, 'Every conductor runs %s; %s.' % (mine, todo))

    def _check_policy(self):
        result = common_checks.check_policy_json(self, self.conf)
        if result.code != Code.SUCCESS:
            return result
        try:
            enforcer = berth_policy.make_enforcer(self.conf)
        except (oslo_policy.PolicyNotRegistered, ValueError, OSError) as exc:
            return Result(Code.FAILURE, 'The policy file cannot be loaded: %s' % exc)
        except Exception as exc:  # YAML errors and the like from oslo.policy
            return Result(Code.FAILURE, 'The policy file cannot be loaded: %s' % exc)
        known = set(enforcer.registered_rules)
        unknown = sorted(set(enforcer.file_rules) - known)
        if unknown:
            return Result(Code.WARNING, 'The policy file sets rules berth does not '
                                        'know: %s.' % ', '.join(unknown))
        return Result(Code.SUCCESS, 'Policy loads; %d rule(s) overridden by the file.'
                      % len(enforcer.file_rules))

    def run_checks(self):
        """[(check name, Result)] in order; a check that raises is a Failure, not a traceback."""
        return [(name, self._guarded(func)) for name, func in self._upgrade_checks]

    def _guarded(self, func):
        try:
            return func(self)
        except (db_exc.DBError, sa_exc.SQLAlchemyError) as exc:
            return Result(Code.FAILURE, 'The database cannot be reached or read: %s'
                          % _first_line(exc))
        except Exception as exc:  # an upgrade check answers; it never crashes
            return Result(Code.FAILURE, 'The check could not run: %s: %s'
                          % (type(exc).__name__, _first_line(exc)))

    def check(self, as_json=False):
        """Print the results as a table (or oslo.upgradecheck's JSON); return the worst Code."""
        results = self.run_checks()
        worst = max((r.code for _, r in results), default=Code.SUCCESS)
        if as_json:
            print(json.dumps({'name': self.display_title, 'checks': [
                {'check': name, 'result': int(result.code), 'details': result.details}
                for name, result in results]}))
            return worst
        table = prettytable.PrettyTable(['Check', 'Result', 'Details'],
                                        hrules=prettytable.HRuleStyle.ALL)
        table.align = 'l'
        for name, result in results:
            table.add_row([name, upgradecheck.UPGRADE_CHECK_MSG_MAP[result.code],
                           '\n'.join(textwrap.wrap(result.details or '', 60))])
        print(self.display_title)
        print(table)
        return worst

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('Online data migrations', _check_online_migrations),
        ('Conductor ring members', _check_ring),
        ('RPC signing key', _check_rpc_key),
        ('Conductors reachable', _check_conductors),
        ('Registered conductors', _check_registry),
        ('Compute node gate', _check_compute_gate),
        ('Contract step', _check_contract),
        ('Policy file', _check_policy),
    )


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _transport_url(conf):
    """``[DEFAULT] transport_url``; None when unset (oslo.messaging's default then)."""
    from common import rpc
    rpc.register_opts(conf)
    url = conf.transport_url
    return None if url in (None, '', rpc.DEFAULT_TRANSPORT_URL) else url


_ring_reader = manage_upgrade._ring_reader     # a status check answers at once


def _ping(conf, host):
    """Call ``ping`` on conductor ``host``: a short timeout, no retries, bounded.

    oslo.messaging's reply queue connects with retries of its own that no
    ``retry`` argument bounds (a broker that refuses connections keeps the
    call waiting for minutes), so the call runs in a thread that the check
    stops waiting for after PING_BOUND seconds.
    """
    outcome = {}

    def call():
        from common import rpc
        from conductor.rpcapi import version as rpc_version
        transport = rpc.get_transport(conf)
        try:
            client = rpc.get_client(transport, rpc_version.RPC_API_VERSION,
                                    conf.upgrade_levels.conductor
                                    or rpc_version.RPC_API_VERSION,
                                    timeout=min(rpc.call_timeout(conf), PING_BOUND),
                                    retry=0)
            ctx = berth_context.admin_context()
            # ping is 1.0: a conductor of any release answers it (rolling upgrades)
            outcome['answer'] = client.prepare(server=host, version='1.0').call(ctx, 'ping')
        except Exception as exc:
            outcome['error'] = exc
        finally:
            transport.cleanup()

    worker = threading.Thread(target=call, name='ping-%s' % host, daemon=True)
    worker.start()
    worker.join(PING_BOUND + 2)
    if 'answer' in outcome:
        return outcome['answer']
    raise outcome.get('error') or TimeoutError('no answer within %ss' % PING_BOUND)


def _status(conf):
    checks = Checks(conf)
    try:
        return int(checks.check())
    finally:
        checks.close()


def add_status_command(subparsers):
    """The ``status`` command."""
    status = subparsers.add_parser(
        'status', help='upgrade readiness checks (exit 0: success, 1: warning, '
                       '2: failure)')
    status.set_defaults(func=_status)
