"""Bodies of POST /resource_classes and PUT /resource_classes/{name} (1.2-1.6)."""

from api.placement.schemas import common

POST_RESOURCE_CLASS = {
    'type': 'object',
    'properties': {'name': common.CUSTOM_NAME},
    'required': ['name'],
    'additionalProperties': False,
}

# before 1.7 a PUT renames the class and takes the same body
PUT_RESOURCE_CLASS = POST_RESOURCE_CLASS
