"""cli.stacks: SIGUSR2 writes every thread's stack; a stop past its bound dumps and exits."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIGUSR2_CHILD = """
import os, signal, sys, threading
from cli import stacks
stacks.dump_on_sigusr2()
def parked_in_a_named_function():
    threading.Event().wait(60)
threading.Thread(target=parked_in_a_named_function, daemon=True).start()
os.kill(os.getpid(), signal.SIGUSR2)
print('still running', flush=True)
"""

STOP_CHILD = """
import threading
from cli import stacks
def a_stop_that_hangs():
    threading.Event().wait(60)
with stacks.bounded_stop(%s):
    a_stop_that_hangs()
print('returned', flush=True)
"""


def _run(code):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_sigusr2_dumps_every_thread_and_the_process_goes_on():
    done = _run(SIGUSR2_CHILD)
    assert done.returncode == 0, done.stderr
    assert 'still running' in done.stdout
    assert 'parked_in_a_named_function' in done.stderr


def test_a_stop_past_its_bound_names_where_it_hung_and_exits():
    done = _run(STOP_CHILD % 0.5)
    assert done.returncode == 1
    assert 'returned' not in done.stdout
    assert 'a_stop_that_hangs' in done.stderr


def test_a_stop_within_its_bound_is_left_alone():
    done = _run(STOP_CHILD.replace('threading.Event().wait(60)', 'pass') % 30)
    assert done.returncode == 0, done.stderr
    assert 'returned' in done.stdout
