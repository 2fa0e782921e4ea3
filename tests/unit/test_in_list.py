"""objects.sql.in_list: fixed-size IN lists select exactly what an expanding IN would."""

import sqlalchemy as sa

from objects.sql import in_list

_T = sa.table('t', sa.column('id', sa.Integer), sa.column('name', sa.String))
_BY = in_list.Statement(
    lambda ids, names: sa.select(_T.c.id).where(sa.or_(in_list.member(_T.c.id, ids),
                                                       in_list.member(_T.c.name, names)))
    .order_by(_T.c.id), 'ids', 'names')


def _engine():
    engine = sa.create_engine('sqlite://')
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)')
        conn.execute(sa.insert(_T), [{'id': i, 'name': 'n%d' % i} for i in range(1, 41)])
    return engine


def test_every_size_selects_exactly_the_values():
    engine = _engine()
    with engine.connect() as conn:
        for count in (0, 1, 2, 3, 5, 9, 16, 17, 30):
            ids = list(range(1, count + 1))
            got = _BY.execute(conn, ids=ids, names=[]).scalars().all()
            assert got == ids, count
            got = _BY.execute(conn, ids=[], names=['n%d' % i for i in ids]).scalars().all()
            assert got == ids, count


def test_forms_are_built_once_per_size():
    first, params = _BY.bind(ids=[1, 2, 3], names=['n9'])
    again, _ = _BY.bind(ids=[4, 5, 6], names=['n1'])
    assert first is again
    # padded with the last value
    assert params == {'ids_0': 1, 'ids_1': 2, 'ids_2': 3, 'ids_3': 3, 'names_0': 'n9'}
    longer, params = _BY.bind(ids=list(range(20)), names=[])
    assert longer is not first and params['ids'] == list(range(20))


def test_postgresql_binds_every_size_as_one_array_form():
    from sqlalchemy.dialects import postgresql
    forms = set()
    for count in (0, 1, 3, 20):
        statement, params = _BY.bind(arrays=True, ids=list(range(count)), names=['n1'])
        forms.add(id(statement))
        assert params == {'ids': list(range(count)), 'names': ['n1']}
    assert len(forms) == 1
    sql = str(statement.compile(dialect=postgresql.dialect()))
    assert 'id = ANY (%(ids)s)' in sql and 'name = ANY (%(names)s)' in sql
    # the padded forms are still the other engines'
    padded, _ = _BY.bind(ids=[1], names=['n1'])
    assert padded is not statement


def test_execute_picks_the_array_form_on_postgresql_only():
    class _Dialect:
        name = 'postgresql'

    class _Conn:
        dialect = _Dialect()

        def execute(self, statement, params):
            return statement, params

    statement, params = _BY.execute(_Conn(), ids=[1, 2, 3], names=[])
    assert params == {'ids': [1, 2, 3], 'names': []}
    _Dialect.name = 'sqlite'
    statement, params = _BY.execute(_Conn(), ids=[1, 2, 3], names=[])
    assert params['ids_3'] == 3
