"""The compatibility tier's shared fixtures.

Every test module here starts with
``pytestmark = [pytest.mark.compat, pytest.mark.integration]`` so that the
parallel pass (``-m "not integration"``) and the integration pass leave it to
``make test-compat``.
"""
