"""The request object handlers receive, with berth's per-request state."""

import urllib.parse

import webob

from api.common import errors

_ENCODING_ERROR = 'berth.encoding_error'


def _not_utf8(key, value):
    """Why ``environ[key]`` (percent-decoded for the query) is not UTF-8, or None."""
    raw = value.encode('latin-1', 'replace')
    if key == 'QUERY_STRING':
        raw = urllib.parse.unquote_to_bytes(raw)
    try:
        raw.decode('utf-8')
    except UnicodeDecodeError as exc:
        return str(exc)
    return None


def _has_nul(key, value):
    """Whether ``environ[key]`` (percent-decoded for the query) holds a NUL byte."""
    if key == 'QUERY_STRING':
        value = urllib.parse.unquote(value, errors='replace')
    return '\x00' in value


def _replaced(key, value):
    """``environ[key]`` with its invalid UTF-8 bytes replaced by U+FFFD."""
    raw = value.encode('latin-1', 'replace')
    if key == 'PATH_INFO':
        return raw.decode('utf-8', 'replace').encode('utf-8').decode('latin-1')
    text = urllib.parse.unquote_to_bytes(raw).decode('utf-8', 'replace')
    return urllib.parse.quote(text, safe='=&')


def check_encoding(req):
    """400 when the request's path or query string was not UTF-8."""
    error = req.environ.get(_ENCODING_ERROR)
    if error is not None:
        raise errors.BadRequest('Invalid request: the %s.' % error)


class BerthRequest(webob.Request):
    """A webob request whose environ carries berth's state (set by the app).

    A path or query string that is not UTF-8 would make every later look at
    it raise; it is replaced at once by a decodable copy and the request is
    marked, so the router answers 400 (:func:`check_encoding`) and the logs
    and error paths can still show it.
    """

    def __init__(self, environ, *args, **kwargs):
        super().__init__(environ, *args, **kwargs)
        for key in ('PATH_INFO', 'QUERY_STRING'):
            error = _not_utf8(key, environ.get(key, ''))
            if error is not None:
                environ[key] = _replaced(key, environ[key])
                environ.setdefault(_ENCODING_ERROR, '%s is not UTF-8 (%s)'
                                   % ('path' if key == 'PATH_INFO' else
                                      'query string', error))
            elif _has_nul(key, environ.get(key, '')):
                # no database takes a NUL in a string (PostgreSQL raised: a 500)
                environ.setdefault(_ENCODING_ERROR, '%s contains a NUL byte'
                                   % ('path' if key == 'PATH_INFO' else 'query string'))

    @property
    def context(self):
        return self.environ['berth.context']

    @property
    def version(self):
        return self.environ['berth.microversion']

    @property
    def conf(self):
        return self.environ['berth.conf']

    @property
    def conductor(self):
        """The conductor RPC client (conductor.rpcapi.ConductorAPI) or None."""
        return self.environ.get('berth.conductor')
