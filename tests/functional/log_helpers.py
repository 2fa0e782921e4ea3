"""Capturing log lines as oslo.log formats them, per thread (request-id tests)."""

import logging
import threading

from oslo_log import formatters
import pytest

from common import context as berth_context


class Capture(logging.Handler):
    """Formats each record in the emitting thread, as oslo.log's handlers do."""

    def __init__(self, conf):
        super().__init__(logging.DEBUG)
        self.setFormatter(formatters.ContextFormatter(project='berth', config=conf))
        self.lines = []      # (thread name, logger name, formatted line)
        self._lock = threading.Lock()

    def emit(self, record):
        line = self.format(record)
        with self._lock:
            self.lines.append((threading.current_thread().name, record.name, line))


@pytest.fixture
def capture(berth):
    """Every line at DEBUG, with oslo.log's default levels for libraries.

    (Those defaults, as in production with ``debug = True``, keep e.g.
    oslo.messaging at INFO: its "received message" line comes before the
    message's context is known.)
    """
    berth_context.set_log_defaults(berth.conf)
    handler = Capture(berth.conf)
    levels = {'': logging.DEBUG}
    for pair in berth.conf.default_log_levels:
        name, _, level = pair.partition('=')
        levels[name] = logging.getLevelName(level)
    old = {name: logging.getLogger(name).level for name in levels}
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger().addHandler(handler)
    yield handler
    logging.getLogger().removeHandler(handler)
    for name, level in old.items():
        logging.getLogger(name).setLevel(level)
