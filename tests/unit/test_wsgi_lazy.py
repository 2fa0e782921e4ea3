"""api.wsgi builds its app once per process, even when the first requests race."""

import threading

from api import wsgi


def test_concurrent_first_requests_build_one_app():
    built = []
    entered = threading.Event()
    release = threading.Event()

    def init():
        built.append(1)
        entered.set()
        release.wait(10)          # hold the first build while the others arrive
        return lambda environ, start_response: [b'ok']

    lazy = wsgi._Lazy(init)
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(lazy({}, None)))
               for _ in range(8)]
    for t in threads:
        t.start()
    assert entered.wait(10)
    release.set()
    for t in threads:
        t.join(10)
    assert built == [1]
    assert answers == [[b'ok']] * 8
