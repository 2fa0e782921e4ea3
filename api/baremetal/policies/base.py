"""Check strings the endpoint rules are built from (Ironic's secure-RBAC defaults, simplified)."""

ADMIN = 'role:admin or role:service or is_admin:True'
# project members work on their own project's allocations (owner = project)
PROJECT_MEMBER = ADMIN + ' or role:member'
PROJECT_READER = PROJECT_MEMBER + ' or role:reader'
