"""bench.region --stop-times: seconds from SIGTERM to exit at each moment of a start.

A stop must end ``berth serve`` within 2 s at any moment (issue 36): while
it opens the database, checks the schema, starts its conductors, loads the
candidate index (the first unlimited request) and while it serves.  Each
moment is a fresh process on the region's database, signalled once its
log names the phase.
"""

import os
import sys
import time

from bench import candidates
from bench import candidates_servers as servers

# where a stop lands (bench.region --stop-times): the phase's log line of
# ``berth serve`` (debug on), waited for before SIGTERM; None: once serving
STOP_MOMENTS = (
    ('opening the database', 'berth: opening the database'),
    ('migration check', 'berth: upgrading the database schema'),
    ('conductors start', 'berth: connecting to the coordination backend'),
    ('index load (first unlimited request)', 'candidate index: reading every provider'),
    ('serving, idle', None),
)


def _wait_line(path, text, proc, seconds=1800):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with open(path, errors='replace') as f:
            if text in f.read():
                return True
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    return False


def stop_times(state, connection):
    """{moment: seconds from SIGTERM to the process gone} for each of STOP_MOMENTS.

    Each a fresh ``berth serve`` on the loaded database, with debug logging
    so that each start phase names itself; the index load is started by an
    unlimited request from a thread (cut off by the stop);
    ``index load finished`` says whether it still ended before the exit.
    """
    import http.client
    import signal
    import subprocess
    import threading

    from tests import services

    path = os.path.join(state, 'stop.conf')
    with open(path, 'w') as f:
        f.write(servers.CONFIG.format(state=state, connection=(
            'connection = ' + connection) if connection else '') + '[DEFAULT]\ndebug = true\n')
    out: dict[str, str | float | bool] = {}
    for moment, line in STOP_MOMENTS:
        port = services.free_port()
        log_path = os.path.join(state, 'stop-%s.log' % moment.split()[0])
        with open(log_path, 'w') as log:
            proc = subprocess.Popen(
                [os.path.join(os.path.dirname(sys.executable), 'berth'), 'serve',
                 '--data-dir', state, '--config-file', path, '--placement-port', str(port),
                 '--baremetal-port', str(services.free_port())],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            if line is None or line.startswith('candidate index'):
                _wait_line(log_path, 'berth is running', proc)
            if line is not None and line.startswith('candidate index'):
                def unlimited():
                    try:
                        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=1800)
                        conn.request('GET', '/allocation_candidates?' + candidates.resources(0),
                                     headers={'X-Auth-Token': 'admin',
                                              'OpenStack-API-Version': 'placement 1.39'})
                        conn.getresponse().read()
                    except (OSError, http.client.HTTPException):
                        pass
                threading.Thread(target=unlimited, daemon=True).start()
            if line is not None and not _wait_line(log_path, line, proc):
                out[moment] = 'no %r in the log' % line
                continue
            began = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=120)
                out[moment] = round(time.perf_counter() - began, 3)
            except subprocess.TimeoutExpired:
                out[moment] = 'still running 120 s after SIGTERM'
            if line is not None and line.startswith('candidate index'):
                with open(log_path, errors='replace') as f:
                    out['index load finished'] = 'providers loaded in' in f.read()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return out
