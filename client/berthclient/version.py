"""The Placement microversions this client can send with berth's extension requests.

berth serves its extensions (POST /claims, /quotas, GET /capacity) at every
Placement microversion, so the version only decides the dialect of what the
answer shares with Placement; the client knows 1.0 up to MAX.
"""

NEGOTIATE = '1'
MAX = '1.39'
SUPPORTED = ['1.%d' % minor for minor in range(int(MAX.split('.')[1]) + 1)] + [NEGOTIATE]


def parse(text):
    """(major, minor) of "1.39"; ValueError for anything else."""
    major, _, minor = text.partition('.')
    if not (major.isdigit() and minor.isdigit()):
        raise ValueError('invalid version %r' % text)
    return int(major), int(minor)


def negotiate(server_min, server_max):
    """The highest version both the server's range and this client know."""
    best = min(parse(server_max), parse(MAX))
    if best < parse(server_min):
        raise ValueError('the server speaks %s to %s; this client 1.0 to %s'
                         % (server_min, server_max, MAX))
    return '%d.%d' % best
