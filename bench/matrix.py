"""What the matrix benches (``--matrix PxC``) count besides the rate: CPU, RPC, commits.

``bench.claims --matrix 1x1,2x3`` runs one deployment per cell (P berth-api
worker processes, C berth-conductor processes, on the RabbitMQ, PostgreSQL
and etcd of bench/cluster.py) and reports, per claim:

- CPU ms by process kind: user + system time from /proc/<pid>/stat of every
  process of the kind and its descendants, the children they reaped
  included (PostgreSQL's backends are the postmaster's children; the API's
  workers are the berth-api master's);
- RPC calls and messages: the API's own ``berth_rpc_duration_seconds``
  counts (one sample per call or cast, by RPC method, summed over the API's
  workers by its ``/metrics``); a call is two messages (the request and its
  reply), a cast one;
- claims per RPC call (the API's coalescing, conductor/rpcapi/claim_batch.py)
  and PostgreSQL commits per claim (``pg_stat_database.xact_commit`` of the
  run's database: the conductors' group commits plus every read
  transaction);
- RabbitMQ's own count of messages it received, when ``rabbitmqctl eval``
  can read its global counters (3.9 and later; no management plugin).
"""

import os
import re
import signal
import subprocess

from tests.chaos.deployment import children

KINDS = ('api', 'conductors', 'postgresql', 'rabbitmq', 'etcd')
_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_matrix(spec):
    """``'1x1,2x3'`` -> ``[(1, 1), (2, 3)]`` (API processes, conductors)."""
    cells = []
    for cell in spec.split(','):
        cell = cell.strip().lower()
        match = re.fullmatch(r'(\d+)x(\d+)', cell)
        if not match or '0' in (match.group(1), match.group(2)):
            raise ValueError('matrix cell %r: want APIxCONDUCTORS, e.g. 2x3' % cell)
        cells.append((int(match.group(1)), int(match.group(2))))
    if not cells:
        raise ValueError('empty matrix')
    return cells


def stat_cpu(stat_text):
    """(own, reaped) CPU seconds from the text of /proc/<pid>/stat."""
    fields = stat_text.rsplit(')', 1)[1].split()
    tick = os.sysconf('SC_CLK_TCK')
    return ((int(fields[11]) + int(fields[12])) / tick,
            (int(fields[13]) + int(fields[14])) / tick)


def tree_cpu(pid):
    """CPU seconds of ``pid``, its live descendants and what each reaped."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open('/proc/%d/stat' % p) as f:
                own, reaped = stat_cpu(f.read())
        except (OSError, IndexError, ValueError):
            continue
        # reaped: children gone (a pool's closed PostgreSQL backend), whose
        # CPU no live process of the tree still shows
        total += own + reaped
        todo.extend(children(p))
    return total


def parse_prometheus(text):
    """``{(name, ((label, value), ...)): value}`` from a text exposition."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        match = _SAMPLE.match(line.strip())
        if not match:
            continue
        labels = tuple(sorted(_LABEL.findall(match.group(3) or '')))
        try:
            samples[(match.group(1), labels)] = float(match.group(4))
        except ValueError:
            continue
    return samples


def rpc_counts(samples):
    """``{method: calls}`` from the ``berth_rpc_duration_seconds`` histogram's counts."""
    counts: dict[str, float] = {}
    for (name, labels), value in samples.items():
        if name == 'berth_rpc_duration_seconds_count':
            method = dict(labels).get('method', '')
            counts[method] = counts.get(method, 0) + value
    return counts


# RPC methods the API casts (one message, no reply); every other one is a call
CASTS: frozenset[str] = frozenset()


def rpc_messages(counts):
    """Messages through the broker for ``{method: calls}``: a request and a reply each."""
    return sum(v if m in CASTS else 2 * v for m, v in counts.items())


def delta(after, before):
    """``after - before`` key by key (keys of ``after``)."""
    return {k: v - before.get(k, 0) for k, v in after.items()}


def rabbit_received(rabbitmq):
    """Messages RabbitMQ received so far (its global counters), or None."""
    from tests import services
    expr = ('lists:sum([maps:get(messages_received_total, M, 0) || '
            '{_, M} <- maps:to_list(rabbit_global_counters:overview())]).')
    try:
        out = subprocess.run([services.RABBIT_BIN + '/rabbitmqctl', '-n', 'rabbit@localhost',
                              'eval', expr], env=rabbitmq._env(),
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        return int(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def pg_commits(postgresql, database):
    """``pg_stat_database.xact_commit`` of ``database``, or None."""
    from tests import services
    sql = "SELECT xact_commit FROM pg_stat_database WHERE datname = '%s'" % database
    try:
        out = subprocess.run([services.PG_BIN + '/psql', '-qtA', '-h', '127.0.0.1',
                              '-p', str(postgresql.port), '-U', 'postgres', '-c', sql],
                             capture_output=True, text=True, timeout=60)
        return int(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def add_cell_options(parser, example):
    """``--conductor-option`` and ``--repeat``: the options every matrix bench shares.

    ``example``: a [conductor] line that the help shows, e.g.
    ``"claim_routing = process"``.
    """
    parser.add_argument('--conductor-option', action='append',
                        help='a [conductor] line for every process of every matrix '
                             'cell, e.g. "%s" (repeatable)' % example)
    parser.add_argument('--repeat', type=int, default=1,
                        help='runs of each matrix cell (the machine is shared: '
                             'report ranges)')


def stop_processes(procs, sig=signal.SIGTERM, wait=30):
    """Send ``sig`` to every process of ``procs`` still running, then reap them all.

    A process not gone ``wait`` seconds after its signal is killed.
    """
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(sig)
    for proc in procs:
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
