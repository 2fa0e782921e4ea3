"""db.change.PostgresWatcher: snapshot tokens, and no token (never a stale one) on errors."""

from db import change


class _Result:
    def __init__(self, value):
        self.value = value

    def scalar_one(self):
        return self.value


class _Conn:
    def __init__(self, engine):
        self.engine = engine
        self.fail = False
        self.invalidated = False
        self.autocommit = False

    def execution_options(self, isolation_level=None):
        self.autocommit = isolation_level == 'AUTOCOMMIT'
        return self

    def execute(self, statement):
        assert statement is change.SNAPSHOT
        if self.fail:
            raise OSError('server closed the connection')
        return _Result(self.engine.snapshots.pop(0))

    def invalidate(self):
        self.invalidated = True


class _Engine:
    def __init__(self, snapshots):
        self.snapshots = list(snapshots)
        self.conns = []

    def connect(self):
        self.conns.append(_Conn(self))
        return self.conns[-1]


def test_the_statement_is_the_snapshot_as_text():
    from sqlalchemy.dialects import postgresql
    sql = str(change.SNAPSHOT.compile(dialect=postgresql.dialect()))
    assert sql == 'SELECT CAST(pg_current_snapshot() AS TEXT) AS pg_current_snapshot_1'


def test_tokens_name_the_snapshot():
    engine = _Engine(['10:15:10,12', '10:15:10,12', '12:15:12', '15:15:'])
    watcher = change.PostgresWatcher(engine)
    first, again, third, fourth = (watcher.token() for _ in range(4))
    assert first == ('pg', 15, 10, (10, 12)) == again
    assert third == ('pg', 15, 12, (12,)) != first     # xid 10 completed meanwhile
    assert fourth == ('pg', 15, 15, ())
    assert len(engine.conns) == 1 and engine.conns[0].autocommit


def test_an_error_gives_no_token_and_a_new_connection():
    engine = _Engine(['3:4:', '3:4:'])
    watcher = change.PostgresWatcher(engine)
    assert watcher.token() == ('pg', 4, 3, ())
    engine.conns[0].fail = True
    assert watcher.token() is None              # unknown: nothing may be trusted
    assert engine.conns[0].invalidated
    assert watcher.token() == ('pg', 4, 3, ())
    assert len(engine.conns) == 2


def test_a_forked_process_uses_a_connection_of_its_own(monkeypatch):
    engine = _Engine(['1:2:', '1:2:'])
    watcher = change.PostgresWatcher(engine)
    watcher.token()
    monkeypatch.setattr(change.os, 'getpid', lambda: -1)
    watcher.token()
    assert len(engine.conns) == 2


def test_close_drops_the_connection():
    engine = _Engine(['1:2:'])
    watcher = change.PostgresWatcher(engine)
    watcher.token()
    watcher.close()
    assert engine.conns[0].invalidated
