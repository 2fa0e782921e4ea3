"""db.change.PostgresWatcher: snapshot tokens, and no token (never a stale one) on errors."""

from db import change


class _Driver:
    autocommit = False


class _Cursor:
    def __init__(self, conn):
        self.conn = conn
        self.row = None

    def execute(self, statement):
        assert statement == change.SNAPSHOT
        if self.conn.fail:
            raise OSError('server closed the connection')
        self.row = (self.conn.engine.snapshots.pop(0),)

    def fetchone(self):
        return self.row


class _Conn:
    """What Engine.raw_connection() gives: the pool's proxy of a driver connection."""

    def __init__(self, engine):
        self.engine = engine
        self.fail = False
        self.invalidated = False
        self.driver_connection = _Driver()
        self.cursors = 0

    def cursor(self):
        self.cursors += 1
        return _Cursor(self)

    def invalidate(self):
        self.invalidated = True


class _Engine:
    def __init__(self, snapshots):
        self.snapshots = list(snapshots)
        self.conns = []

    def raw_connection(self):
        self.conns.append(_Conn(self))
        return self.conns[-1]


def test_the_statement_is_the_snapshot_as_text():
    assert change.SNAPSHOT == 'SELECT pg_current_snapshot()::text'


def test_tokens_name_the_snapshot():
    engine = _Engine(['10:15:10,12', '10:15:10,12', '12:15:12', '15:15:'])
    watcher = change.PostgresWatcher(engine)
    first, again, third, fourth = (watcher.token() for _ in range(4))
    assert first == ('pg', 15, 10, (10, 12)) == again
    assert third == ('pg', 15, 12, (12,)) != first     # xid 10 completed meanwhile
    assert fourth == ('pg', 15, 15, ())
    # one connection in the driver's autocommit mode, one cursor, kept
    assert len(engine.conns) == 1 and engine.conns[0].driver_connection.autocommit
    assert engine.conns[0].cursors == 1


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
