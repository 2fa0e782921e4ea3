"""gunicorn settings for berth's APIs: ``gunicorn -c etc/berth/gunicorn.conf.py api.wsgi:application``.

Set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory (the same for every
worker; empty it before each start) so that ``/metrics`` of any worker
reports the counts of all of them.  The hook below drops the live gauges of
a worker that exited.  ``BERTH_CONFIG_FILE`` names the configuration file
(default /etc/berth/berth.conf).
"""

import os

from common import metrics

bind = os.environ.get('BERTH_BIND', '127.0.0.1:8778')
workers = int(os.environ.get('BERTH_WORKERS', '2'))


def child_exit(server, worker):
    metrics.mark_process_dead(worker.pid)
