"""common.context.RequestContext.get_logging_values is oslo.context's, built cheaper."""

from oslo_context import context as o_context
import pytest

from common import context


@pytest.mark.parametrize('kwargs', [
    {},
    {'user_id': 'u', 'project_id': 'p', 'roles': ['admin'], 'is_admin': True,
     'request_id': 'req-1', 'global_request_id': 'req-2'},
    {'auth_token': 'secret', 'user_name': 'alice', 'project_name': 'demo',
     'domain_name': 'd', 'user_domain_name': 'ud', 'project_domain_name': 'pd',
     'system_scope': 'all'},
])
def test_same_values_as_oslo_context(kwargs):
    ctx = context.RequestContext(overwrite=False, **kwargs)
    ctx.resource_uuid = 'r-1'
    ctx.auth_token_info = {'token': 'x'}
    expected = o_context.RequestContext.get_logging_values(ctx)
    got = ctx.get_logging_values()
    assert got == expected
    assert 'auth_token_info' not in got
    assert got['auth_token'] == ('***' if kwargs.get('auth_token') else None)
