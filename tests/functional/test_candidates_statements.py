"""How many statements a candidates request costs (issue 20).

A request outside any transaction reads the change token (db/change.py);
when the provider index and the names it needs are known for that token it
answers from memory: no transaction and no statement beyond the token's
(PostgreSQL: one ``pg_current_snapshot()`` on the watcher's own driver
cursor; SQLite: ``PRAGMA data_version`` on the watcher's own sqlite3
connection; both outside SQLAlchemy, so none is counted here).  A request
through the API reads the token once.  Any commit moves the token: the next
request reads the database again and sees the commit.  MariaDB has no
exact change detector: there every request reads the database.
"""

import contextlib

import pytest
import sqlalchemy as sa

from common import exception
from db import api as db_api
from objects.candidates import finder
from objects.candidates import request as rg
from tests import dbengines
from tests.functional import candidate_helpers as helpers


@contextlib.contextmanager
def _statements():
    seen = []

    def count(conn, cursor, statement, *args):
        seen.append(statement)

    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', count)
    try:
        yield seen
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', count)


def _request(*required):
    return rg.ResourceRequest(groups=[rg.RequestGroup(
        resources={'VCPU': 1}, required=[{t} for t in required])])


def _uuids(result):
    return sorted(p for cand in helpers.encoded(result)['allocation_requests']
                  for p in cand['allocations'])


def _answered_from_memory(ctx, seen):
    """Whether a request that ran ``seen`` answered from memory, where it can.

    MariaDB has no exact change detector (change_token() is None): there
    every request must read the database, as the first one did.
    """
    if not dbengines.has_change_detector(ctx.db):
        return any('resource_classes' in s for s in seen)
    return not seen     # the token's own read is outside SQLAlchemy (see above)


@pytest.mark.parametrize('limit', [None, 2])
def test_a_current_request_reads_only_the_change_token(berth, ctx, limit):
    for _ in range(3):
        helpers.add_provider(ctx, inventory={'VCPU': 8}, traits=['CUSTOM_FAST'])
    request, options = _request('CUSTOM_FAST'), finder.Options(limit=limit)
    # the first (unlimited) search refreshes the index and learns the names
    finder.get_candidates(ctx, request, finder.Options(), may_lag=True)
    with _statements() as seen:
        found = finder.get_candidates(ctx, request, options, may_lag=True)
    assert _answered_from_memory(ctx, seen), seen
    loaded = finder.get_candidates(ctx, request, finder.Options(limit=limit, indexed=False))
    assert _uuids(found) == _uuids(loaded)
    assert (found.token is not None) == dbengines.has_change_detector(ctx.db)

    # a commit moves the token: read again, and the new provider is seen
    new = helpers.add_provider(ctx, inventory={'VCPU': 8}, traits=['CUSTOM_FAST'])
    with _statements() as seen:
        found = finder.get_candidates(ctx, request, finder.Options(), may_lag=True)
    assert seen
    assert new in _uuids(found)


def test_unknown_names_stay_errors_until_created(berth, ctx):
    helpers.add_provider(ctx, inventory={'VCPU': 8})
    finder.get_candidates(ctx, _request(), finder.Options(), may_lag=True)
    for _ in range(2):         # the second time from the names known for the token
        with _statements() as seen, pytest.raises(exception.TraitNotFound):
            finder.get_candidates(ctx, _request('CUSTOM_LATER'), may_lag=True)
    assert _answered_from_memory(ctx, seen), seen
    with pytest.raises(exception.ResourceClassNotFound):
        finder.get_candidates(ctx, rg.ResourceRequest(groups=[rg.RequestGroup(
            resources={'CUSTOM_NOPE': 1})]), may_lag=True)
    rp = helpers.add_provider(ctx, inventory={'VCPU': 8}, traits=['CUSTOM_LATER'])
    found = finder.get_candidates(ctx, _request('CUSTOM_LATER'), may_lag=True)
    assert _uuids(found) == [rp]


def test_a_request_inside_a_transaction_reads_in_it(berth, ctx):
    helpers.add_provider(ctx, inventory={'VCPU': 8})
    finder.get_candidates(ctx, _request(), finder.Options(), may_lag=True)

    @db_api.reader
    def inside(ctx):
        return finder.get_candidates(ctx, _request(), finder.Options())

    with _statements() as seen:
        found = inside(ctx)
    assert len(_uuids(found)) == 1
    # no token is known for the caller's snapshot: it is read
    assert any('resource_classes' in s for s in seen), seen


def test_an_api_request_reads_the_change_token_once(berth, client, ctx, monkeypatch):
    helpers.add_provider(ctx, inventory={'VCPU': 8})
    path = '/allocation_candidates?resources=VCPU:%d'
    assert client.get(path % 1).status_code == 200       # index and names loaded
    reads = []
    read = type(berth.db).change_token

    def counted(db):
        reads.append(db)
        return read(db)

    monkeypatch.setattr(type(berth.db), 'change_token', counted)
    # distinct amounts: no cached answer; each read is a round trip on PostgreSQL
    for amount in (2, 3):
        resp = client.get(path % amount)
        assert resp.status_code == 200 and len(resp.json()['allocation_requests']) == 1
    assert len(reads) == 2


def test_a_token_the_caller_read_is_not_read_again(berth, ctx, monkeypatch):
    helpers.add_provider(ctx, inventory={'VCPU': 8})
    request = _request()
    token = ctx.db.change_token()
    finder.get_candidates(ctx, request, finder.Options(), may_lag=True, token=token)
    monkeypatch.setattr(type(ctx.db), 'change_token', lambda db: pytest.fail('read again'))
    found = finder.get_candidates(ctx, request, finder.Options(), may_lag=True, token=token)
    assert found.token == token and len(_uuids(found)) == 1
