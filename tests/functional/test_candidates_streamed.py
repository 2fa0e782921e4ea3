"""GET /allocation_candidates: a large unlimited answer is streamed, byte for byte the same.

objects.candidates.wire.Streamed encodes the candidates while the server
sends them (chunked), so an unlimited answer of a large region never exists
whole in memory.  STREAM_AFTER is lowered here so that a small region's
answers take that path; the same answers with the threshold out of reach
are the reference.
"""

import orjson
import pytest

from objects.candidates import wire
from tests.functional import candidate_helpers as helpers

AGG = '2f3b3f6e-2d8a-4f0e-9a55-5a8c0b2c8a11'
QUERIES = ['resources=VCPU:1,MEMORY_MB:64',
           'resources=VCPU:1,DISK_GB:10',
           'resources=VCPU:1&required=HW_CPU_X86_AVX2']      # 1.17 and later


@pytest.fixture
def region(ctx):
    for i in range(12):
        cn = helpers.add_provider(ctx, name='cn%d' % i,
                                  inventory={'VCPU': 8, 'MEMORY_MB': 2048},
                                  traits=['HW_CPU_X86_AVX2'] if i % 2 else [],
                                  aggregates=[AGG] if i % 3 else [])
        if i % 4 == 0:
            helpers.add_provider(ctx, name='numa%d' % i, parent=cn,
                                 inventory={'VCPU': 4, 'MEMORY_MB': 1024})
    helpers.add_provider(ctx, name='ss', inventory={'DISK_GB': 100},
                         traits=[helpers.SHARES], aggregates=[AGG])


def _get(client, query, version):
    rsp = client.get('/allocation_candidates?' + query, version=version)
    assert rsp.status_code == 200, rsp.text
    return rsp


@pytest.mark.parametrize('version', ['1.10', '1.12', '1.29', 'latest'])
def test_a_streamed_answer_equals_the_whole_one(client, region, monkeypatch, version):
    for query in QUERIES if version not in ('1.10', '1.12') else QUERIES[:2]:
        monkeypatch.setattr(wire, 'STREAM_AFTER', 0)
        streamed = _get(client, query, version)
        assert 'Content-Length' not in streamed.headers
        assert streamed.headers.get('Transfer-Encoding') == 'chunked'
        monkeypatch.setattr(wire, 'STREAM_AFTER', 10 ** 9)
        whole = _get(client, query, version)
        assert int(whole.headers['Content-Length']) == len(whole.content)
        assert streamed.content == whole.content
        assert orjson.loads(streamed.content)['allocation_requests']


def test_a_limited_answer_is_never_streamed(client, region, monkeypatch):
    monkeypatch.setattr(wire, 'STREAM_AFTER', 0)
    rsp = _get(client, QUERIES[0] + '&limit=3', 'latest')
    assert int(rsp.headers['Content-Length']) == len(rsp.content)
    assert len(orjson.loads(rsp.content)['allocation_requests']) == 3
