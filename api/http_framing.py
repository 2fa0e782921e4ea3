"""The header block of a request as RFC 9112 says to read it: what is ambiguous is refused.

cheroot's header reader accepts what a front proxy may read differently,
the root of request smuggling: two ``Content-Length`` headers (the last
won), ``Transfer-Encoding : chunked`` (a space before the colon), an
obs-fold continuation line (it was joined to the previous header, and
could replace a ``Content-Length``), a space inside a header name, control
characters and NUL in values.  :class:`StrictHeaderReader` raises
``ValueError`` (api.server answers 400 and closes the connection) for each
of them, and for a ``Transfer-Encoding`` other than exactly ``chunked``.
"""

import re

from cheroot import server as cheroot_server

# RFC 9110 5.6.2: token = 1*tchar
_TOKEN = re.compile(rb"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# field-value: visible characters, SP and HTAB, and obs-text (0x80-0xFF)
_BAD_VALUE = re.compile(rb'[\x00-\x08\x0a-\x1f\x7f]')
# headers that must appear once (their duplicates frame the body differently)
_SINGLE = (b'Content-Length', b'Transfer-Encoding', b'Host')
CRLF = b'\r\n'


class StrictHeaderReader(cheroot_server.HeaderReader):
    """cheroot's HeaderReader, refusing what RFC 9112 says to refuse."""

    def __call__(self, rfile, hdict=None):
        if hdict is None:
            hdict = {}
        seen = set()
        while True:
            line = rfile.readline()
            if not line:
                raise ValueError('Illegal end of headers.')
            if line == CRLF:
                break
            if not line.endswith(CRLF):
                raise ValueError('HTTP requires CRLF terminators')
            if line[:1] in (b' ', b'\t'):
                raise ValueError('Obsolete line folding is not allowed.')
            name, colon, value = line[:-2].partition(b':')
            if not colon:
                raise ValueError('Illegal header line.')
            if not _TOKEN.match(name):
                raise ValueError('Illegal header name.')
            if _BAD_VALUE.search(value):
                raise ValueError('Illegal character in a header value.')
            key = name.title()
            value = value.strip(b' \t')
            if key in _SINGLE:
                if key in seen:
                    raise ValueError('Repeated %s header.' % key.decode('ascii'))
                seen.add(key)
            if key in cheroot_server.comma_separated_headers and hdict.get(key):
                value = b', '.join((hdict[key], value))
            hdict[key] = value
        _check_framing(hdict)
        return hdict


def _check_framing(headers):
    length = headers.get(b'Content-Length')
    if length is not None and not (length.isdigit() and len(length) <= 18):
        raise ValueError('Malformed Content-Length Header: content-length header must be '
                         'an integer.')
    encoding = headers.get(b'Transfer-Encoding')
    if encoding is not None and encoding.lower() != b'chunked':
        raise ValueError('Malformed Transfer-Encoding Header: only chunked is accepted.')
