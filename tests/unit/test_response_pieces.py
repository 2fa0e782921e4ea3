"""Encoded bodies go to the server in pieces (api.placement.response.send_encoded)."""

import webob

from api.placement import response
from objects.candidates import wire


class _Req:
    class version:
        @staticmethod
        def matches(v):
            return True


def _serve(resp, method='GET'):
    """(status, headers, the pieces the WSGI server is handed) of ``resp``."""
    got = {}

    def start_response(status, headers, exc_info=None):
        got['status'], got['headers'] = status, dict(headers)

    pieces = list(resp(webob.Request.blank('/', method=method).environ, start_response))
    return got['status'], got['headers'], pieces


def test_a_long_body_goes_in_pieces_with_its_length():
    body = b'[' + b','.join(b'{"n":%d}' % i for i in range(40000)) + b']'
    assert len(body) > 3 * response.PIECE
    status, headers, pieces = _serve(response.send_encoded(_Req(), body))
    assert status == '200 OK'
    assert headers['Content-Length'] == str(len(body))
    assert headers['cache-control'] == 'no-cache' and 'last-modified' in headers
    assert len(pieces) == -(-len(body) // response.PIECE)
    assert all(type(p) is bytes and len(p) <= response.PIECE for p in pieces)
    assert b''.join(pieces) == body


def test_a_short_body_goes_whole():
    status, headers, pieces = _serve(response.send_encoded(_Req(), b'{"a":1}'))
    assert pieces == [b'{"a":1}'] and headers['Content-Length'] == '7'


def test_head_of_a_long_body_has_its_length_and_no_body():
    body = b'"' + b'x' * (2 * response.PIECE) + b'"'
    status, headers, pieces = _serve(response.send_encoded(_Req(), body), method='HEAD')
    assert headers['Content-Length'] == str(len(body))
    assert b''.join(pieces) == b''


def test_an_answer_in_pieces_is_never_joined_whole():
    requests = [b'{"n":%d}' % i for i in range(40000)]
    summaries = [b'"u%d":{}' % i for i in range(3)]
    whole = wire.answer_json(list(requests), summaries)
    encoded = wire.answer(requests, summaries)
    assert requests == []           # let go as joined
    # a few hundred requests per bytes object, not two objects per request
    assert len(encoded.pieces) < 40000 // wire.JOIN * 2 + 10
    assert len(encoded) == len(whole) > 3 * response.PIECE
    status, headers, pieces = _serve(response.send_encoded(_Req(), encoded))
    assert headers['Content-Length'] == str(len(whole))
    assert b''.join(pieces) == whole
    assert len(pieces) > 3 and max(map(len, pieces)) < 2 * response.PIECE
    # requests longer than a piece: joined groups are cut to PIECE again
    big = [b'"%s"' % (b'x' * 5000) for _ in range(300)]
    whole = wire.answer_json(list(big), [])
    status, headers, pieces = _serve(response.send_encoded(_Req(), wire.answer(big, [])))
    assert b''.join(pieces) == whole
    assert max(map(len, pieces)) <= response.PIECE
    short = wire.answer([b'{}'], [])
    status, headers, pieces = _serve(response.send_encoded(_Req(), short))
    assert pieces == [b'{"allocation_requests":[{}],"provider_summaries":{}}']
