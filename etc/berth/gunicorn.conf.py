"""gunicorn settings for berth's APIs.

    gunicorn -c etc/berth/gunicorn.conf.py api.wsgi:application

Set ``PROMETHEUS_MULTIPROC_DIR`` to a directory of its own (the same for
every worker) so that ``/metrics`` of any worker reports the counts of all
of them.  The hooks below empty it when gunicorn starts and drop the live
gauges of a worker that exited.  ``BERTH_CONFIG_FILE`` names the
configuration file (default /etc/berth/berth.conf); ``BERTH_BIND`` and
``BERTH_WORKERS`` the address and the number of worker processes.
"""

import os

from common import metrics

bind = os.environ.get('BERTH_BIND', '127.0.0.1:8778')
workers = int(os.environ.get('BERTH_WORKERS', '2'))


def on_starting(server):
    """Forget the values of a previous run: the master starts before any worker."""
    metrics.clear_multiprocess_dir()


def child_exit(server, worker):
    metrics.mark_process_dead(worker.pid)
