"""Strategies for requests to every Placement route: paths, queries and bodies."""

from hypothesis import strategies as st

from api.placement.schemas import aggregate as agg_schema
from api.placement.schemas import allocation as alloc_schema
from api.placement.schemas import claim as claim_schema
from api.placement.schemas import inventory as inv_schema
from api.placement.schemas import quota as quota_schema
from api.placement.schemas import reshaper as reshaper_schema
from api.placement.schemas import resource_class as rc_schema
from api.placement.schemas import resource_provider as rp_schema
from api.placement.schemas import trait as trait_schema
from tests.fuzz import candidates, jsonfuzz
from tests.fuzz import world as known
from tests.fuzz.harness import quote

UUIDS = st.one_of(st.sampled_from(known.PROVIDERS), st.uuids().map(str),
                  st.sampled_from(['a0000000-0000-4000-8000-00000000000', 'A0000000'
                                   '-0000-4000-8000-000000000001', known.ROOT.replace('-', '')]),
                  jsonfuzz.TEXT)
CLASSES = st.one_of(st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB', known.CUSTOM_RC,
                                     'SRIOV_NET_VF', 'CUSTOM_NEW', 'custom_fuzz',
                                     'CUSTOM_' + 'X' * 250]), jsonfuzz.TEXT)
TRAITS = st.one_of(st.sampled_from(['HW_CPU_X86_AVX', known.CUSTOM_TRAIT, 'CUSTOM_NEW',
                                    'CUSTOM_' + 'X' * 250, 'custom_x', 'CUSTOM_']),
                   jsonfuzz.TEXT)
CONSUMERS = st.one_of(st.just(known.CONSUMER), st.uuids().map(str), jsonfuzz.TEXT)
PROJECTS = st.one_of(st.sampled_from(['fuzz-project', 'admin', 'p' * 256]),
                     jsonfuzz.TEXT)

_PROVIDER_BODIES = [rp_schema.POST_PROVIDER, rp_schema.POST_PROVIDER_1_14]
_ALLOCATION_BODIES = [s for _, s in alloc_schema.PUT_ALLOCATIONS]


def _bodies(*schemas):
    return st.one_of([jsonfuzz.neighbourhood(s) for s in schemas])


def _keyed(keys, values=jsonfuzz.TEXT):
    """A query string of some of ``keys`` (or junk keys) with fuzzed values."""
    pair = st.tuples(st.one_of(st.sampled_from(keys), jsonfuzz.TEXT), values)
    return st.lists(pair, max_size=4)


def _query_values():
    return st.one_of(st.sampled_from(known.PROVIDERS + [known.AGG, 'in:' + known.AGG,
                                                        'VCPU:1', 'HW_CPU_X86_AVX',
                                                        'true', 'false', 'INSTANCE',
                                                        'all', 'unknown']),
                     jsonfuzz.TEXT)


# (method, path strategy, query strategy or None, body strategy or None)
def routes():
    """Every Placement route with the strategies of its path, query and body."""
    rp = UUIDS.map(lambda u: '/resource_providers/' + quote(u))
    q = _query_values()
    return [
        ('GET', st.just('/'), None, None),
        ('GET', st.just('/allocation_candidates'), candidates.query(), None),
        ('GET', st.just('/resource_classes'), None, None),
        ('POST', st.just('/resource_classes'), None,
         _bodies(rc_schema.POST_RESOURCE_CLASS)),
        ('GET', CLASSES.map(lambda c: '/resource_classes/' + quote(c)), None, None),
        ('PUT', CLASSES.map(lambda c: '/resource_classes/' + quote(c)), None,
         st.one_of(st.none(), _bodies(rc_schema.PUT_RESOURCE_CLASS))),
        ('DELETE', CLASSES.map(lambda c: '/resource_classes/' + quote(c)), None, None),
        ('GET', st.just('/resource_providers'),
         _keyed(['name', 'uuid', 'member_of', 'resources', 'in_tree', 'required'], q),
         None),
        ('POST', st.just('/resource_providers'), None, _bodies(*_PROVIDER_BODIES)),
        ('GET', rp, None, None),
        ('PUT', rp, None, _bodies(rp_schema.PUT_PROVIDER, rp_schema.PUT_PROVIDER_1_14)),
        ('DELETE', rp, None, None),
        ('GET', rp.map(lambda p: p + '/aggregates'), None, None),
        ('PUT', rp.map(lambda p: p + '/aggregates'), None,
         _bodies(agg_schema.PUT_AGGREGATES, agg_schema.PUT_AGGREGATES_1_19)),
        ('GET', rp.map(lambda p: p + '/inventories'), None, None),
        ('POST', rp.map(lambda p: p + '/inventories'), None,
         _bodies(inv_schema.POST_INVENTORY)),
        ('PUT', rp.map(lambda p: p + '/inventories'), None,
         _bodies(inv_schema.PUT_INVENTORIES)),
        ('DELETE', rp.map(lambda p: p + '/inventories'), None, None),
        ('GET', _inventory_path(rp), None, None),
        ('PUT', _inventory_path(rp), None, _bodies(inv_schema.PUT_INVENTORY)),
        ('DELETE', _inventory_path(rp), None, None),
        ('GET', rp.map(lambda p: p + '/traits'), None, None),
        ('PUT', rp.map(lambda p: p + '/traits'), None,
         _bodies(trait_schema.PUT_PROVIDER_TRAITS)),
        ('DELETE', rp.map(lambda p: p + '/traits'), None, None),
        ('GET', rp.map(lambda p: p + '/usages'), None, None),
        ('GET', rp.map(lambda p: p + '/allocations'), None, None),
        ('POST', st.just('/allocations'), None,
         _bodies(*[s for _, s in alloc_schema.POST_ALLOCATIONS])),
        ('GET', _consumer_path(), None, None),
        ('PUT', _consumer_path(), None, _bodies(*_ALLOCATION_BODIES)),
        ('DELETE', _consumer_path(), None, None),
        ('GET', st.just('/usages'), _keyed(['project_id', 'user_id', 'consumer_type'],
                                           st.one_of(PROJECTS, q)), None),
        ('POST', st.just('/reshaper'), None,
         _bodies(*[s for _, s in reshaper_schema.POST_RESHAPER])),
        ('GET', st.just('/traits'), _keyed(['name', 'associated'], st.one_of(
            st.sampled_from(['in:HW_CPU_X86_AVX,CUSTOM_FUZZ', 'startswith:CUSTOM',
                             'in:', 'startswith:', 'true', 'false']), q)), None),
        ('POST', st.just('/claims'), None, _bodies(claim_schema.POST_CLAIMS)),
        ('GET', st.just('/capacity'), capacity_query(), None),
        ('GET', _quota_path(), _keyed(['user_id'], PROJECTS), None),
        ('PUT', _quota_path(), _keyed(['user_id'], PROJECTS),
         _bodies(quota_schema.PUT_QUOTA)),
        ('DELETE', _quota_path(), _keyed(['user_id'], PROJECTS), None),
        ('GET', TRAITS.map(lambda t: '/traits/' + quote(t)), None, None),
        ('PUT', TRAITS.map(lambda t: '/traits/' + quote(t)), None, None),
        ('DELETE', TRAITS.map(lambda t: '/traits/' + quote(t)), None, None),
    ]


def capacity_query():
    """GET /capacity: the candidates' (key, value) pairs plus ``providers`` ones."""
    providers = st.lists(st.tuples(st.just('providers'), st.one_of(
        st.sampled_from(['1', '0', '1000', '1001', '-1', 'x', '']), _query_values())),
        max_size=2)
    return st.tuples(candidates.query(), providers).map(
        lambda t: list(t[0]) + list(t[1]))


def _inventory_path(rp):
    return st.tuples(rp, CLASSES).map(lambda t: '%s/inventories/%s' % (t[0], quote(t[1])))


def _consumer_path():
    return CONSUMERS.map(lambda c: '/allocations/' + quote(c))


def _quota_path():
    return PROJECTS.map(lambda p: '/quotas/' + quote(p))
