"""Building responses: JSON bodies, cache headers, links and locations."""

import datetime
import email.utils

from oslo_serialization import jsonutils
import webob

from api.common import links as common_links
from api.placement import microversion

# an encoded body longer than this goes to the server in pieces of this size
PIECE = 64 * 1024


def _http_date(when):
    if when is None:
        when = datetime.datetime.now(datetime.UTC)
    elif when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return email.utils.format_datetime(when.astimezone(datetime.UTC),
                                       usegmt=True)


def newest(*stamps):
    """The latest non-None datetime among ``stamps`` (or None)."""
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


def set_cache_headers(req, resp, last_modified=None):
    """From 1.15: cache-control no-cache and last-modified (now when unknown)."""
    if req.version.matches(microversion.CACHE_HEADERS):
        resp.headers['cache-control'] = 'no-cache'
        resp.headers['last-modified'] = _http_date(last_modified)
    return resp


def send_json(req, body, status=200, last_modified=None, cache=True):
    resp = webob.Response(status=status, charset=None,
                          content_type='application/json')
    resp.body = jsonutils.dump_as_bytes(body)
    if cache:
        set_cache_headers(req, resp, last_modified)
    return resp


def send_encoded(req, body, status=200, last_modified=None):
    """A JSON response whose body is already encoded, with cache headers.

    ``body`` is bytes, or JSON in pieces: ``len()`` its size, ``bytes()`` the
    whole and ``chunks(size)`` bytes of about ``size`` each
    (objects.candidates.wire.Encoded), never joined whole when long.

    A long body (an unlimited candidate answer is ~50 MB at 100,000
    computes) is handed to the server in PIECE-sized bytes, with its
    Content-Length: cheroot's writer copies everything not yet sent into a
    new bytes object before each send, so one 50 MB piece cost a copy per
    partial send (~0.7 s CPU per answer, and more the slower the client
    reads).  The body is complete before the status goes out, so an error
    never cuts a 200 short.
    """
    resp = webob.Response(status=status, charset=None,
                          content_type='application/json')
    if getattr(body, 'streamed', False):
        # made as it is sent (objects.candidates.wire.Streamed): no length
        # before the end, so chunked; an error while encoding (none is
        # expected: the candidates are all found by now) cuts it short
        resp.app_iter = body.chunks(PIECE)
    elif len(body) > PIECE:
        resp.app_iter = _pieces(body) if isinstance(body, bytes) else body.chunks(PIECE)
        resp.content_length = len(body)
    else:
        resp.body = bytes(body)
    return set_cache_headers(req, resp, last_modified)


def _pieces(body):
    for start in range(0, len(body), PIECE):
        yield body[start:start + PIECE]


def no_content(status=204, location=None):
    """A response without body and without a content-type header."""
    resp = webob.Response(status=status)
    resp.headers.pop('content-type', None)
    if location:
        resp.headers['location'] = location
    return resp


def link(req, path):
    """A relative link that keeps the mount prefix."""
    return req.script_name + path


def location(req, path):
    """An absolute URL for a Location header."""
    return common_links.base_url(req) + path
