"""``berth serve`` in a process of its own, and what a benchmark reads of it.

bench/region.py and bench/limited_tail.py run the server apart from their
clients so that its RSS, its CPU and its start are the deployment's own:
:class:`Serve` starts it on a state directory (and database) and times it
to *listening*, *limited ready* (a first ``limit=50`` answer) and *ready*
(a first full answer: the provider index loaded); :func:`cpu_seconds`,
:func:`schedstat` (:func:`runqueue_ns`) and :func:`memory` read a process's
CPU clock, its threads' scheduling counters (their wait for a CPU) and its
RSS.
"""

import http.client
import os
import signal
import subprocess
import sys
import time

from bench import candidates, cluster
from bench import candidates_servers as servers


def memory(pid):
    out = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(('VmRSS:', 'VmHWM:')):
                out[line.split(':')[0]] = round(int(line.split()[1]) / 1024.0, 1)
    return {'rss_mb': out.get('VmRSS'), 'hwm_mb': out.get('VmHWM')}


class Serve:
    """``berth serve`` on the state directory (and database), in its own process."""

    def __init__(self, state, connection, log):
        from tests import services

        self.port = services.free_port()
        argv = [os.path.join(os.path.dirname(sys.executable), 'berth'), 'serve',
                '--data-dir', state, '--placement-port', str(self.port),
                '--baremetal-port', str(services.free_port())]
        if connection:
            path = os.path.join(state, 'berth.conf')
            with open(path, 'w') as f:
                f.write(servers.CONFIG.format(state=state,
                                              connection='connection = ' + connection))
            argv += ['--config-file', path]
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.times = {}
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError('berth serve exited %s' % self.proc.returncode)
            try:
                conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=5)
                conn.request('GET', '/')
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.05)
        self.times['listening_s'] = round(time.perf_counter() - self.t0, 2)
        self.client = servers.Client('127.0.0.1', self.port)
        self.client.get(candidates.resources(0) + '&limit=50')
        self.times['limited_ready_s'] = round(time.perf_counter() - self.t0, 2)
        self.client.get(candidates.resources(0))
        self.times['ready_s'] = round(time.perf_counter() - self.t0, 2)

    def cpu(self):
        return cpu_seconds(self.proc.pid)

    def memory(self):
        return memory(self.proc.pid)

    def stop(self):
        """SIGTERM; seconds until the process was gone (None: killed after 120 s)."""
        began = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        return round(time.perf_counter() - began, 3)


def cpu_seconds(pid):
    """CPU seconds of every thread of ``pid``, live or exited, to the nanosecond.

    The process's CPU-time clock (clock_getcpuclockid: CPUCLOCK_SCHED of the
    thread group, what /proc/<pid>/task/*/schedstat's first fields add up to,
    plus the threads gone): /proc/<pid>/stat counts in 10 ms ticks, too
    coarse for the ~5 ms requests of 1,000 computes.  The ticks when the
    clock cannot be read.
    """
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        return cluster.cpu_seconds(pid)


def schedstat(pid):
    """``{tid: (on-CPU ns, runqueue ns, timeslices)}`` of the live threads of ``pid``.

    Raises OSError when ``pid`` is gone; a thread that ends meanwhile is left out.
    """
    out = {}
    base = '/proc/%d/task' % pid
    for tid in os.listdir(base):
        try:
            with open('%s/%s/schedstat' % (base, tid)) as f:
                out[tid] = tuple(int(x) for x in f.read().split())
        except (OSError, ValueError):
            continue
    return out


def runqueue_ns(pid):
    """ns the threads of ``pid`` spent runnable but off a CPU (schedstat; 0 if unknown)."""
    try:
        return sum(stat[1] for stat in schedstat(pid).values() if len(stat) > 1)
    except OSError:
        return 0
