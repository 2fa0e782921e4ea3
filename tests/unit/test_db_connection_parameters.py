"""db.dialect.connection_parameters: berth's libpq defaults, never over the operator's."""

from db import dialect


def _keys(query):
    return dict(part.split('=', 1) for part in query.split('&'))


def test_postgresql_gets_every_timeout():
    got = _keys(dialect.connection_parameters('postgresql+psycopg2://u:p@h/berth'))
    assert got == dict(dialect.POSTGRESQL_TIMEOUTS)


def test_what_the_url_or_the_option_sets_wins():
    got = _keys(dialect.connection_parameters(
        'postgresql+psycopg2://u:p@h/berth?keepalives_idle=99',
        'tcp_user_timeout=5000&application_name=berth-conductor'))
    assert 'keepalives_idle' not in got           # stays in the URL, as given
    assert got['tcp_user_timeout'] == '5000'
    assert got['application_name'] == 'berth-conductor'
    assert got['connect_timeout'] == '10'


def test_other_engines_get_only_what_was_given():
    assert dialect.connection_parameters('mysql+pymysql://u:p@h/berth',
                                         'charset=utf8mb4') == 'charset=utf8mb4'
    assert dialect.connection_parameters('sqlite:////tmp/berth.sqlite') is None


def test_a_replica_url_keeps_its_own_connect_timeout():
    """doc/source/deployment.md's slave_connection sets connect_timeout=3: libpq refuses
    a parameter given twice, so the primary's defaults must not be appended to it."""
    from db import api as db_api
    db = db_api.Database(
        'postgresql+psycopg2://u:p@/berth?host=h1:5432&host=h2:5432'
        '&target_session_attrs=read-write',
        slave_connection='postgresql+psycopg2://u:p@/berth?host=h2:5432&host=h1:5432'
        '&target_session_attrs=prefer-standby&connect_timeout=3')
    try:
        primary, replica = db.engine.url.query, db.replica_engine.url.query
        assert replica['connect_timeout'] == '3'
        assert primary['connect_timeout'] == '10'
        assert replica['host'] == ('h2:5432', 'h1:5432')     # the order given
        for key, value in dialect.POSTGRESQL_TIMEOUTS[1:]:
            assert primary[key] == replica[key] == value
    finally:
        db.dispose()


def test_given_parameters_reach_each_url_once_with_a_replica():
    """[database] connection_parameters with a replica: each URL carries them
    once (oslo.db appending them again would give libpq every key twice)."""
    from db import api as db_api
    db = db_api.Database(
        'postgresql+psycopg2://u:p@h1/berth', connection_parameters='application_name=berth',
        slave_connection='postgresql+psycopg2://u:p@h2/berth?connect_timeout=3')
    try:
        for engine in (db.engine, db.replica_engine):
            assert engine.url.query['application_name'] == 'berth'
            assert isinstance(engine.url.query['connect_timeout'], str)
    finally:
        db.dispose()
