"""Building responses: JSON bodies, cache headers, links and locations."""

import datetime
import email.utils

from oslo_serialization import jsonutils
import webob

from api.common import links as common_links


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
    if req.version.matches('1.15'):
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
    """A JSON response whose body is already encoded (bytes), with cache headers."""
    resp = webob.Response(status=status, charset=None,
                          content_type='application/json')
    resp.body = body
    return set_cache_headers(req, resp, last_modified)


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
