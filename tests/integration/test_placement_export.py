"""The way back: berth's state exported into a real Placement 16, which then answers as berth.

berth is populated through its REST API (tests/adoption_builder.py: nested
providers with CUSTOM classes, a sharing provider, custom traits, several
projects, users and consumer types, non-default inventory fields, a provider
with no inventory), ``berth-manage export placement`` writes it into a
db-synced Placement database, Placement 16 is started on that database, and
``berth-manage verify placement`` must find 0 differences.
"""

import time

import pytest
import requests
import sqlalchemy as sa

from cli import manage
from objects.adoption import placement_schema as ps
from tests import adoption_builder, fixtures, mariadb_service, placement_real, services
from tests.integration.conftest import MARKS

# compat too: they run in the compat pass, beside the database parity passes
# (make test-parity-compat), where waiting on a real Placement costs CI no time
pytestmark = [*MARKS, pytest.mark.adoption, pytest.mark.compat]


@pytest.fixture
def berth_cfg(berth, conf, tmp_path):
    path = tmp_path / 'berth.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n%s'
                    % (conf.state_path, fixtures.database_section(conf)))
    return str(path)


def _manage(capsys, *argv):
    code = manage.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _verify(capsys, placement, berth, *extra):
    return _manage(capsys, 'verify', 'placement', '--endpoint', placement.url,
                   '--token', 'admin', '--berth-endpoint', berth.placement_url,
                   '--workers', '2', *extra)


def _export_and_compare(berth, berth_cfg, capsys, workdir, target, microversion='1.39',
                        started_before=False):
    with requests.Session() as session:
        adoption_builder.build(adoption_builder.Api(session, berth.placement_url))
    venv = placement_real.require_venv()
    placement = placement_real.Placement(workdir, venv, target)
    placement.db_sync()
    if started_before:
        # Placement has served on the target once: its standard classes and
        # traits are there already, and the export maps onto them by name
        placement.start(sync=False)
        placement.stop()
    started = time.monotonic()
    code, out, err = _manage(capsys, '--config-file', berth_cfg,
                             'export', 'placement', '--connection', target)
    export_s = time.monotonic() - started
    assert (code, err) == (0, ''), out + err
    assert 'resource_providers           8' in out, out
    assert 'allocations                  13' in out, out
    placement.start(sync=False)
    try:
        started = time.monotonic()
        code, out, err = _verify(capsys, placement, berth, '--microversion', microversion)
        with capsys.disabled():
            print('\nexport %.2f s, verify %.2f s: %s'
                  % (export_s, time.monotonic() - started, out.splitlines()[-1]))
        assert (code, err) == (0, ''), out
        assert ' 0 difference(s)' in out
        if microversion != '1.39':
            code, out, err = _verify(capsys, placement, berth)
            diffs = [line for line in out.splitlines() if line.startswith('DIFFERENT')]
            assert code == 1 and diffs, out
            assert all(line.startswith('DIFFERENT /usages?') and
                       line.endswith(' (status): placement=500 berth=200')
                       for line in diffs), out

        # the comparison has teeth: a write to Placement alone is found
        s = placement.session()
        uuid = adoption_builder.uid('empty-provider')
        gen = s.get(placement.url + '/resource_providers/' + uuid).json()['generation']
        assert s.put(placement.url + '/resource_providers/%s/traits' % uuid,
                     json={'traits': ['CUSTOM_GOLD'],
                           'resource_provider_generation': gen}).status_code == 200
        code, out, err = _verify(capsys, placement, berth, '--microversion', microversion)
        assert code == 1, out
        assert ('DIFFERENT /resource_providers/%s /generation: placement=%d berth=%d'
                % (uuid, gen + 1, gen)) in out.splitlines(), out
    finally:
        placement.stop()

    # a second export into the now non-empty target is refused, nothing written
    code, out, err = _manage(capsys, '--config-file', berth_cfg,
                             'export', 'placement', '--connection', target)
    assert (code, out) == (2, '')
    assert err.count('\n') == 1 and 'is not empty (8 row(s) in resource_providers)' in err


def test_export_to_sqlite_placement_answers_as_berth(berth, berth_cfg, capsys, tmp_path):
    target = placement_real.sqlite_url(tmp_path / 'placement.sqlite')
    _export_and_compare(berth, berth_cfg, capsys, tmp_path / 'placement', target,
                        started_before=True)


def test_export_to_postgresql_placement_answers_as_berth(berth, berth_cfg, capsys,
                                                          tmp_path):
    pg = services.PostgreSQL(tmp_path / 'pg')
    try:
        pg.start()
    except services.ServiceError as exc:
        services.unavailable('PostgreSQL: %s' % exc)
    try:
        target = pg.url
        # Placement 16 itself answers GET /usages with 500 at >= 1.38 on PostgreSQL
        # (a GROUP BY its query lacks); below that every answer must be the same
        _export_and_compare(berth, berth_cfg, capsys, tmp_path / 'placement', target,
                            microversion='1.37')
        engine = sa.create_engine(target)
        with engine.connect() as conn:
            # Placement's next insert takes an id after the exported ones
            nxt = conn.execute(sa.text(
                "SELECT nextval(pg_get_serial_sequence('resource_providers', 'id'))")
            ).scalar()
            top = conn.execute(sa.select(sa.func.max(ps.resource_providers.c.id))).scalar()
        engine.dispose()
        assert nxt > top
    finally:
        pg.stop()


def test_export_to_mariadb_placement_answers_as_berth(berth, berth_cfg, capsys, tmp_path):
    db = mariadb_service.MariaDB(tmp_path / 'mariadb')
    try:
        db.start()
    except services.ServiceError as exc:
        services.unavailable('MariaDB: %s' % exc)
    try:
        # VCPU's id is 0 in Placement: MySQL must not take it as "the next id"
        _export_and_compare(berth, berth_cfg, capsys, tmp_path / 'placement', db.url)
        engine = sa.create_engine(db.url)
        with engine.connect() as conn:
            assert conn.execute(sa.select(ps.resource_classes.c.name).where(
                ps.resource_classes.c.id == 0)).scalar() == 'VCPU'
        engine.dispose()
    finally:
        db.stop()
