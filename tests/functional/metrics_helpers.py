"""Reading Prometheus text exposition in tests."""

from prometheus_client import parser
import requests


def samples(text):
    """``{(sample name, frozenset(labels.items())): value}`` of an exposition."""
    found = {}
    for family in parser.text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, frozenset(s.labels.items()))] = s.value
    return found


def value(text, name, **labels):
    """The value of one sample (0 when absent: a counter never incremented)."""
    return samples(text).get((name, frozenset(labels.items())), 0.0)


def total(text, name, **labels):
    """The sum of every sample of ``name`` whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, lbls), v in samples(text).items()
               if n == name and want <= set(lbls))


def scrape(client):
    """GET /metrics (no token, no version) of a test client's server or a URL; the text."""
    base_url = client if isinstance(client, str) else client.base_url
    resp = requests.get(base_url + '/metrics', timeout=30)
    assert resp.status_code == 200, resp.text
    assert resp.headers['content-type'].startswith('text/plain')
    return resp.text
