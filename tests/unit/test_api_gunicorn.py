"""cli/api_gunicorn.py: berth's options become gunicorn's settings; each port its app."""

import asyncio

from cli import api_gunicorn
from tests import fixtures


def _app(tmp_path, processes=3, threads=5, **overrides):
    conf = fixtures.make_conf(tmp_path, **{'api.placement_port': 18778,
                                           'api.baremetal_port': 16385, **overrides})
    return api_gunicorn.BerthApplication(conf, processes, threads)


def test_both_ports_preloaded_asgi_workers(tmp_path):
    cfg = _app(tmp_path).cfg
    assert cfg.bind == ['127.0.0.1:18778', '127.0.0.1:16385']
    assert cfg.workers == 3
    assert cfg.preload_app is True
    assert cfg.worker_class_str == 'asgi'
    assert cfg.graceful_timeout == 30
    assert cfg.control_socket.endswith('berth-api-18778.ctl')


def test_an_ipv6_host_is_bracketed(tmp_path):
    assert _app(tmp_path, **{'api.host': '::1'}).cfg.bind[0] == '[::1]:18778'


def test_each_request_goes_to_the_app_of_its_port():
    seen = []

    def app(name):
        async def answer(scope, receive, send):
            seen.append(name)
        return answer

    by_port = api_gunicorn._ByPort({18778: 'placement', 16385: 'baremetal'})
    by_port.apps.update(placement=app('placement'), baremetal=app('baremetal'))
    for port in (16385, 18778):
        asyncio.run(by_port({'type': 'http', 'server': ('127.0.0.1', port)}, None, None))
    asyncio.run(by_port({'type': 'lifespan'}, None, None))
    assert seen == ['baremetal', 'placement']
