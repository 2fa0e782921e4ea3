"""OpenStack Placement's own database schema (openstack-placement 16.0.0), as Core tables.

Read by ``berth-manage import placement`` and written by ``berth-manage
export placement``; berth never depends on the ``openstack-placement``
package at run time, so the tables are declared here from the facts in
``/work/shared/reference/placement-db-schema.md`` (measured on a real
Placement 16.0.0 after ``placement-manage db sync``).

Placement keeps its schema revision in alembic's ``alembic_version`` table.
:func:`schema_revision` reads it and refuses, with :class:`UnknownRevision`,
any revision not in :data:`REVISIONS`; :func:`tables_for` gives the tables
a source at that revision has (no ``consumer_types`` and no
``consumers.consumer_type_id`` before ``422ece571366``).
"""

import sqlalchemy as sa

# Placement's alembic chain, oldest first: revision -> what it did
REVISIONS = (
    ('b4ed3a175331', 'initial schema'),
    ('611cd6dffd7b', 'blocks upgrade while a provider has a NULL root_provider_id'),
    ('b5c396305c25', 'blocks upgrade while allocations lack a consumer row'),
    ('422ece571366', 'adds consumer_types and consumers.consumer_type_id'),
    ('a082b8bb98d0', 'drops indexes made redundant by unique constraints'),
)
KNOWN_REVISIONS = tuple(rev for rev, _ in REVISIONS)
HEAD = KNOWN_REVISIONS[-1]
# the first revision with consumer_types / consumers.consumer_type_id
CONSUMER_TYPES_REVISION = '422ece571366'

# Placement writes its standard classes at ids 0.. in os-resource-classes'
# order and custom ones from this id on
FIRST_CUSTOM_RESOURCE_CLASS_ID = 10000
# what Placement writes for a consumer created before projects were required
INCOMPLETE_CONSUMER_ID = '00000000-0000-0000-0000-000000000000'

metadata = sa.MetaData()


def _timestamps() -> tuple[sa.Column, sa.Column]:
    return (sa.Column('created_at', sa.DateTime, nullable=True),
            sa.Column('updated_at', sa.DateTime, nullable=True))


alembic_version = sa.Table(
    'alembic_version', metadata,
    sa.Column('version_num', sa.String(32), primary_key=True))

resource_providers = sa.Table(
    'resource_providers', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.Unicode(200), nullable=True),
    sa.Column('generation', sa.Integer, nullable=True),
    sa.Column('root_provider_id', sa.Integer, sa.ForeignKey('resource_providers.id'),
              nullable=True),
    sa.Column('parent_provider_id', sa.Integer, sa.ForeignKey('resource_providers.id'),
              nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.Index('resource_providers_root_provider_id_idx', 'root_provider_id'),
    sa.Index('resource_providers_parent_provider_id_idx', 'parent_provider_id'))

inventories = sa.Table(
    'inventories', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('resource_provider_id', sa.Integer, nullable=False),
    sa.Column('resource_class_id', sa.Integer, nullable=False),
    sa.Column('total', sa.Integer, nullable=False),
    sa.Column('reserved', sa.Integer, nullable=False),
    sa.Column('min_unit', sa.Integer, nullable=False),
    sa.Column('max_unit', sa.Integer, nullable=False),
    sa.Column('step_size', sa.Integer, nullable=False),
    sa.Column('allocation_ratio', sa.Float, nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                        name='uniq_inventories0resource_provider_resource_class'),
    sa.Index('inventories_resource_class_id_idx', 'resource_class_id'))

allocations = sa.Table(
    'allocations', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('resource_provider_id', sa.Integer, nullable=False),
    # the consumer's uuid string, not consumers.id; no foreign key declared
    sa.Column('consumer_id', sa.String(36), nullable=False),
    sa.Column('resource_class_id', sa.Integer, nullable=False),
    sa.Column('used', sa.Integer, nullable=False),
    *_timestamps(),
    sa.Index('allocations_resource_provider_class_used_idx', 'resource_provider_id',
             'resource_class_id', 'used'),
    sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
    sa.Index('allocations_consumer_id_idx', 'consumer_id'))

projects = sa.Table(
    'projects', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('external_id', name='uniq_projects0external_id'))

users = sa.Table(
    'users', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('external_id', name='uniq_users0external_id'))

consumer_types = sa.Table(
    'consumer_types', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('name', sa.Unicode(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_consumer_types0name'))

consumers = sa.Table(
    'consumers', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('project_id', sa.Integer, sa.ForeignKey('projects.id'), nullable=False),
    sa.Column('user_id', sa.Integer, sa.ForeignKey('users.id'), nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, server_default='0'),
    sa.Column('consumer_type_id', sa.Integer, sa.ForeignKey('consumer_types.id'),
              nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    sa.Index('consumers_project_id_uuid_idx', 'project_id', 'uuid'),
    sa.Index('consumers_project_id_user_id_uuid_idx', 'project_id', 'user_id', 'uuid'),
    sa.Index('consumers_consumer_type_id_idx', 'consumer_type_id'))

resource_classes = sa.Table(
    'resource_classes', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('name', sa.String(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_resource_classes0name'))

traits = sa.Table(
    'traits', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('name', sa.Unicode(255), nullable=False),
    *_timestamps(),
    sa.UniqueConstraint('name', name='uniq_traits0name'))

resource_provider_traits = sa.Table(
    'resource_provider_traits', metadata,
    sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'), primary_key=True),
    sa.Column('resource_provider_id', sa.Integer, primary_key=True),
    *_timestamps(),
    sa.Index('resource_provider_traits_resource_provider_trait_idx', 'resource_provider_id',
             'trait_id'))

placement_aggregates = sa.Table(
    'placement_aggregates', metadata,
    sa.Column('id', sa.Integer, primary_key=True),
    # as the client sent it: dashless or upper case is possible
    sa.Column('uuid', sa.String(36), nullable=True),
    *_timestamps(),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'))

resource_provider_aggregates = sa.Table(
    'resource_provider_aggregates', metadata,
    sa.Column('resource_provider_id', sa.Integer, primary_key=True),
    sa.Column('aggregate_id', sa.Integer, primary_key=True),
    *_timestamps(),
    sa.Index('resource_provider_aggregates_aggregate_id_idx', 'aggregate_id'))

# every data table, in an order that satisfies foreign keys on insert
TABLES = (resource_classes, traits, projects, users, consumer_types, resource_providers,
          placement_aggregates, resource_provider_aggregates, resource_provider_traits,
          inventories, consumers, allocations)


class SchemaError(Exception):
    """The source is not a Placement database this code knows (one line, for the operator)."""


class UnknownRevision(SchemaError):
    """Placement's ``alembic_version`` names a revision not in :data:`REVISIONS`."""


def has_consumer_types(revision: str) -> bool:
    """Whether a database at ``revision`` has ``consumer_types`` and ``consumer_type_id``."""
    return KNOWN_REVISIONS.index(revision) >= KNOWN_REVISIONS.index(CONSUMER_TYPES_REVISION)


def schema_revision(conn: sa.Connection) -> str:
    """The known revision of the Placement database on ``conn`` (a Connection).

    Raises :class:`SchemaError` when there is no ``alembic_version`` table
    or it is empty (not a Placement database, or ``placement-manage db
    sync`` never ran) and :class:`UnknownRevision` for a revision not known
    here (a newer Placement: upgrade berth, or an unrelated database).
    """
    if not sa.inspect(conn).has_table('alembic_version'):
        raise SchemaError(
            'no alembic_version table: this is not a Placement database '
            '(or placement-manage db sync never ran on it)')
    rows = [r[0] for r in conn.execute(sa.select(alembic_version.c.version_num))]
    if not rows:
        raise SchemaError('alembic_version is empty: placement-manage db sync never '
                          'finished on this database')
    unknown = [r for r in rows if r not in KNOWN_REVISIONS]
    if unknown or len(rows) != 1:
        raise UnknownRevision(
            'unknown Placement schema revision %s (known: %s, head %s of '
            'openstack-placement 16.0.0); upgrade berth or check the --connection URL'
            % (', '.join(sorted(rows)), ', '.join(KNOWN_REVISIONS), HEAD))
    return rows[0]


def consumer_columns(revision: str) -> list[sa.Column]:
    """The ``consumers`` columns a database at ``revision`` has (a list of Columns)."""
    cols = [consumers.c.id, consumers.c.uuid, consumers.c.project_id,
            consumers.c.user_id, consumers.c.generation]
    if has_consumer_types(revision):
        cols.append(consumers.c.consumer_type_id)
    return cols


def tables_for(revision: str) -> tuple[sa.Table, ...]:
    """The data tables a database at ``revision`` has (``consumer_types`` from 422ece571366)."""
    return tuple(t for t in TABLES
                 if t is not consumer_types or has_consumer_types(revision))


def create_at(bind: sa.Connection, revision: str = HEAD) -> None:
    """Create Placement's tables as they stand at ``revision`` and stamp it (tests only).

    Placement's own ``placement-manage db sync`` is the real thing; this
    builds the same tables for unit tests without the package.
    """
    if revision not in KNOWN_REVISIONS:
        raise UnknownRevision('unknown Placement schema revision %s' % revision)
    with_types = has_consumer_types(revision)
    meta = sa.MetaData()
    for table in TABLES:
        if table is consumer_types and not with_types:
            continue
        cols = [sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable,
                          server_default=c.server_default)
                for c in table.columns if with_types or c.name != 'consumer_type_id']
        uniques = [sa.UniqueConstraint(*con.columns.keys(), name=con.name)
                   for con in table.constraints if isinstance(con, sa.UniqueConstraint)]
        # Placement's indexes too: a catch-up reads rows by provider and consumer
        indexes = [sa.Index(idx.name, *[c.name for c in idx.columns])
                   for idx in table.indexes
                   if with_types or 'consumer_type_id' not in idx.columns]
        sa.Table(table.name, meta, *cols, *uniques, *indexes)
    sa.Table('alembic_version', meta, sa.Column('version_num', sa.String(32),
                                                primary_key=True))
    meta.create_all(bind)
    bind.execute(alembic_version.insert().values(version_num=revision))
