"""gunicorn settings for berth's APIs.

    gunicorn -c etc/berth/gunicorn.conf.py api.wsgi:application

Set ``PROMETHEUS_MULTIPROC_DIR`` to a directory of its own (the same for
every worker) so that ``/metrics`` of any worker reports the counts of all
of them.  The hooks below empty it when gunicorn starts and drop the live
gauges of a worker that exited.  ``BERTH_CONFIG_FILE`` names the
configuration file (default /etc/berth/berth.conf); ``BERTH_BIND`` and
``BERTH_WORKERS`` the address and the number of worker processes,
``BERTH_WORKER_TIMEOUT`` gunicorn's worker timeout (seconds, above berth's
write bound).

Each master gets a control socket (``gunicornc``) of its own, named after the
address it binds (``BERTH_CONTROL_SOCKET`` overrides it): with gunicorn's
default both APIs on one host would share ``~/.gunicorn/gunicorn.ctl`` and the
second master would take the first one's socket.
"""

import os

from common import metrics

bind = os.environ.get('BERTH_BIND', '127.0.0.1:8778')
# above berth's write bound ([conductor] rpc_timeout, 60 s by default, plus the
# broker retries): a worker is never killed mid-request by design; keep it at
# least rpc_timeout + 30 (doc/source/operations.md "The write bound")
timeout = int(os.environ.get('BERTH_WORKER_TIMEOUT', '90'))
workers = int(os.environ.get('BERTH_WORKERS', '2'))
control_socket = os.environ.get('BERTH_CONTROL_SOCKET') or os.path.join(
    os.environ.get('XDG_RUNTIME_DIR') or os.path.join(os.path.expanduser('~'), '.gunicorn'),
    'berth-%s.ctl' % bind.replace(':', '-').replace('/', '_'))


def on_starting(server):
    """Forget the values of a previous run: the master starts before any worker."""
    metrics.clear_multiprocess_dir()


def child_exit(server, worker):
    metrics.mark_process_dead(worker.pid)
