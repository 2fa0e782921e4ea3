"""The real-Placement harness (tests/placement_real.py) and berth's copy of its schema.

Placement 16.0.0 is installed in a venv of its own, synced on a SQLite file and
served; its tables must be exactly the ones objects/adoption/placement_schema.py
declares, at the revision it names as head.
"""

import pytest
import sqlalchemy as sa

from objects.adoption import placement_schema as ps
from tests import placement_real
from tests.integration.conftest import MARKS

# compat too: they run in the compat pass, beside the database parity passes
# (make test-parity-compat), where waiting on a real Placement costs CI no time
pytestmark = [*MARKS, pytest.mark.adoption, pytest.mark.compat]


def test_placement_schema_matches_a_synced_placement(tmp_path):
    url = placement_real.sqlite_url(tmp_path / 'placement.sqlite')
    service = placement_real.start(tmp_path, url)
    try:
        s = service.session()
        rp = s.post(service.url + '/resource_providers', json={'name': 'cn1'})
        assert rp.status_code == 200, rp.text
        assert rp.json()['generation'] == 0
    finally:
        service.stop()
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        assert ps.schema_revision(conn) == ps.HEAD
        insp = sa.inspect(conn)
        assert set(insp.get_table_names()) == {t.name for t in ps.TABLES} | {'alembic_version'}
        for table in ps.TABLES:
            assert {c['name'] for c in insp.get_columns(table.name)} == set(table.c.keys())
        names = [r.name for r in conn.execute(sa.select(ps.resource_classes.c.name)
                                              .order_by(ps.resource_classes.c.id))]
        assert names[:3] == ['VCPU', 'MEMORY_MB', 'DISK_GB']
        assert conn.execute(sa.select(ps.resource_providers.c.uuid)).scalar_one() == \
            rp.json()['uuid']
    engine.dispose()
