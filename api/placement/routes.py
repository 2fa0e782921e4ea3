"""The routes table: path template -> {HTTP method: handler}."""

from api.placement.handlers import resource_class
from api.placement.handlers import root

ROUTES = [
    ('/', {'GET': root.home}),
    ('/resource_classes', {'GET': resource_class.list_resource_classes,
                           'POST': resource_class.create_resource_class}),
    ('/resource_classes/{name}', {'GET': resource_class.get_resource_class,
                                  'PUT': resource_class.update_resource_class,
                                  'DELETE': resource_class.delete_resource_class}),
]
