"""``[api] workers`` is processes, ``[api] threads`` threads; the old meaning migrates.

cli/api_workers.py: with ``threads`` unset, a ``workers`` above the number of
CPUs is a configuration written when workers meant threads.
"""

import logging
import os

from cli import api_workers
from common.conf import builder

CPUS = os.cpu_count()


def _conf(**api):
    return builder.build(config_files=[],
                         overrides={'api.%s' % k: v for k, v in api.items()})


def test_defaults_are_one_process_per_cpu_of_sixteen_threads():
    conf = _conf()
    assert api_workers.process_count(conf) == CPUS
    assert api_workers.thread_count(conf) == 16


def test_workers_and_threads_mean_what_they_say():
    conf = _conf(workers=CPUS + 5, threads=3)
    assert api_workers.process_count(conf) == CPUS + 5
    assert api_workers.thread_count(conf) == 3
    conf = _conf(workers=1)
    assert (api_workers.process_count(conf), api_workers.thread_count(conf)) == (1, 16)


def test_an_old_thread_count_is_read_as_threads_with_a_warning(caplog):
    conf = _conf(workers=CPUS + 30)
    with caplog.at_level(logging.WARNING):
        assert api_workers.thread_count(conf) == CPUS + 30
    assert api_workers.process_count(conf) == CPUS
    assert 'is read as threads per process' in caplog.text
    assert 'set [api] threads' in caplog.text


def test_a_small_workers_value_is_processes_even_without_threads(caplog):
    conf = _conf(workers=CPUS)
    with caplog.at_level(logging.WARNING):
        assert api_workers.thread_count(conf) == 16
    assert api_workers.process_count(conf) == CPUS
    assert 'read as threads' not in caplog.text
