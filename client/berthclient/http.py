"""A keystoneauth session client for berth's extensions on the Placement endpoint.

Every request carries ``OpenStack-API-Version: placement <version>``; 4xx
answers in Placement's JSON error format become osc-lib exceptions with the
error's detail (and berth's error code), which OSC prints as
``<detail> (HTTP <status>)`` and exits 1, as osc-placement does.
"""

import contextlib
import json
import logging

from keystoneauth1 import exceptions as ks_exceptions
from osc_lib import exceptions

from berthclient import version

LOG = logging.getLogger(__name__)
SERVICE_TYPE = 'placement'

_BY_STATUS = {cls.http_status: cls for cls in exceptions.ClientException.__subclasses__()}


def _error_message(response):
    """'<detail> [<code>]' of a Placement JSON error body, or the raw text."""
    try:
        error = json.loads(response.content)['errors'][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return response.text.strip() or response.reason
    detail = (error.get('detail') or error.get('title') or '').split('\n')[-1].strip()
    return '%s [%s]' % (detail, error['code']) if error.get('code') else detail


@contextlib.contextmanager
def _osc_errors():
    try:
        yield
    except ks_exceptions.HttpError as exc:
        if exc.response is None or not 400 <= exc.http_status < 500:
            raise
        cls = _BY_STATUS.get(exc.http_status, exceptions.CommandError)
        raise cls(exc.http_status, _error_message(exc.response)) from exc


class SessionClient:
    """request() on the placement endpoint at one negotiated microversion."""

    def __init__(self, session, ks_filter, api_version=version.NEGOTIATE):
        self.session = session
        self.ks_filter = ks_filter
        self.api_version = api_version
        if api_version == version.NEGOTIATE:
            self.api_version = self._negotiate()

    def _negotiate(self):
        response = self.request('GET', '/', version='1.0')
        try:
            latest = response.json()['versions'][0]
            bounds = latest['min_version'], latest['max_version']
        except (ValueError, KeyError, IndexError, TypeError):
            # another service's root document (the bare-metal API's, say) or no JSON
            raise exceptions.CommandError(
                'this endpoint is not a Placement API: %s (set OS_ENDPOINT or '
                '--os-endpoint to berth\'s placement URL)' % response.url) from None
        try:
            chosen = version.negotiate(*bounds)
        except ValueError as exc:
            raise exceptions.CommandError(str(exc)) from exc
        LOG.debug('berth API version negotiated: %s', chosen)
        return chosen

    def request(self, method, url, version=None, **kwargs):
        headers = kwargs.pop('headers', {})
        headers.setdefault('OpenStack-API-Version', '%s %s' % (
            SERVICE_TYPE, version or self.api_version))
        headers.setdefault('Accept', 'application/json')
        with _osc_errors():
            return self.session.request(url, method, headers=headers,
                                        endpoint_filter=self.ks_filter, **kwargs)
