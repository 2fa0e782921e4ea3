"""Error codes sent in the ``code`` field of error bodies (microversion >= 1.23).

Do not change the string values and never reuse one: clients match on them.
Codes in the ``berth.`` namespace are berth's own extensions.
"""

DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = 'placement.resource_provider.cannot_delete_parent'
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
QUERY_DUPLICATE_KEY = 'placement.query.duplicate_key'
QUERY_BAD_VALUE = 'placement.query.bad_value'
QUERY_MISSING_VALUE = 'placement.query.missing_value'

# berth extensions
SERVICE_UNAVAILABLE = 'berth.service_unavailable'
# a write may have happened (a conductor got it, then its answer could not come)
OUTCOME_UNKNOWN = 'berth.outcome_unknown'
STORAGE_FULL = 'berth.storage_full'
REQUEST_TOO_LARGE = 'berth.request_too_large'
NO_VALID_HOST = 'berth.no_valid_host'
QUOTA_EXCEEDED = 'berth.quota.exceeded'
QUOTA_LIMITS_UNAVAILABLE = 'berth.quota.limits_unavailable'
QUOTA_LIMITS_READ_ONLY = 'berth.quota.limits_read_only'
CAPACITY_BAD_QUERY = 'berth.capacity.bad_query'
CLAIM_CONSUMERS = 'berth.claims.consumers'
