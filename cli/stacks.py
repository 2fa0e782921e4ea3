"""Thread stacks for an operator: on SIGUSR2, and when a stop overruns its bound.

``kill -USR2 <pid>`` writes every thread's stack to the process's stderr (the
service log under a process manager) and the process goes on.  A stop that
takes longer than its bound writes the stacks the same way and then exits
with status 1: a hung shutdown names the call it hung in instead of waiting
for the process manager's SIGKILL.
"""

import contextlib
import faulthandler
import signal
import sys

# seconds a stop may take beyond the time its own timeouts add up to
STOP_MARGIN = 30


def dump_on_sigusr2():
    """Write all threads' stacks to stderr on SIGUSR2 (POSIX only)."""
    if hasattr(signal, 'SIGUSR2'):
        faulthandler.register(signal.SIGUSR2, file=sys.stderr, all_threads=True)


@contextlib.contextmanager
def bounded_stop(seconds):
    """Dump the stacks and exit if the body runs longer than ``seconds``."""
    faulthandler.dump_traceback_later(seconds, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
