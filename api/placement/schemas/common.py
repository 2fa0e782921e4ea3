"""Schema fragments shared by several resources."""

MAX_INT = 2147483647
MAX_FLOAT = 3.40282e+38

RC_NAME = {'type': 'string', 'pattern': '^[A-Z0-9_]+$', 'maxLength': 255}
CUSTOM_NAME = {'type': 'string', 'pattern': '^CUSTOM_[A-Z0-9_]+$', 'maxLength': 255}
UUID = {'type': 'string', 'format': 'uuid'}
UUID36 = '^[0-9a-fA-F-]{36}$'
GENERATION = {'type': 'integer'}
# the longest list any one request body may carry (traits, aggregates,
# allocation lists, mappings): bounded work per request
MAX_ITEMS = 1000
# the longest list of query terms or groups in a claim body
MAX_TERMS = 100
