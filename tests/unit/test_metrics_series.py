"""common.metrics.replace_series: a gauge shows exactly the series of the last read."""

import math

import prometheus_client as prom

from common import metrics


def _gauge():
    registry = prom.CollectorRegistry()
    return prom.Gauge('berth_test_series', 'test', ['provider'], registry=registry), registry


def _values(registry):
    return {s.labels['provider']: s.value for m in registry.collect() for s in m.samples}


def test_a_series_missing_from_the_new_read_is_removed(monkeypatch):
    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    gauge, registry = _gauge()
    metrics.replace_series(gauge, {('a',): 1, ('b',): 2})
    metrics.replace_series(gauge, {('b',): 3, ('c',): 4})
    assert _values(registry) == {'b': 3, 'c': 4}


def test_under_multiprocess_a_missing_series_becomes_nan(monkeypatch, tmp_path):
    # the value files cannot forget a series: NaN never matches an alert's comparison
    monkeypatch.setenv(metrics.MULTIPROC_ENV, str(tmp_path))
    gauge, registry = _gauge()
    metrics.replace_series(gauge, {('a',): 1, ('b',): 2})
    metrics.replace_series(gauge, {('b',): 3})
    values = _values(registry)
    assert values['b'] == 3 and math.isnan(values['a'])
    metrics.replace_series(gauge, {('a',): 5})      # it may come back
    values = _values(registry)
    assert values['a'] == 5 and math.isnan(values['b'])
