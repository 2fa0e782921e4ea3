"""The hardware types berth offers and their driver interfaces, as Ironic shows them.

berth runs every node as Ironic's ``fake-hardware`` hardware type: nothing
touches real hardware.  Each interface kind lists, in Ironic's order of
preference, the implementations enabled for it: the ``fake`` one first (a
default Ironic computes as the first enabled implementation the hardware
type supports), then Ironic's do-nothing ones (``no-*``/``noop``).  Two
defaults are not the first: ``network`` is ``noop`` (berth has no DHCP or
Neutron) and ``storage`` is ``noop`` (Ironic's ``default_storage_interface``).
As in Ironic, fake-hardware takes any enabled implementation of a kind.
"""

# kind -> (enabled implementations, default); Ironic's kinds up to API 1.86.  berth
# serves no firmware (its endpoints are 'not supported by berth'), so firmware
# has only Ironic's do-nothing ``no-firmware``, also Ironic's default enabled list
FAKE_HARDWARE = {
    'bios': (('fake', 'no-bios'), 'fake'),
    'boot': (('fake',), 'fake'),
    'console': (('fake', 'no-console'), 'fake'),
    'deploy': (('fake',), 'fake'),
    'firmware': (('no-firmware',), 'no-firmware'),
    'inspect': (('fake', 'no-inspect'), 'fake'),
    'management': (('fake',), 'fake'),
    'network': (('flat', 'noop'), 'noop'),
    'power': (('fake',), 'fake'),
    'raid': (('fake', 'no-raid'), 'fake'),
    'rescue': (('fake', 'no-rescue'), 'fake'),
    'storage': (('fake', 'noop'), 'noop'),
    'vendor': (('fake', 'no-vendor'), 'fake'),
}

# hardware type -> its interfaces (schemas.node.DRIVERS names the same ones)
HARDWARE_TYPES = {'fake-hardware': FAKE_HARDWARE}

# the first version showing (and accepting) each ``<kind>_interface`` node field
# and the driver's ``default_<kind>_interface``/``enabled_<kind>_interfaces``
INTERFACE_VERSIONS = {
    'bios': '1.40', 'boot': '1.31', 'console': '1.31', 'deploy': '1.31',
    'inspect': '1.31', 'management': '1.31', 'network': '1.20', 'power': '1.31',
    'raid': '1.31', 'rescue': '1.38', 'storage': '1.33', 'vendor': '1.31',
    'firmware': '1.86',
}
# driver fields shown from 1.30 whatever the interface's own node version,
# except these (Ironic's driver hide_fields_in_newer_versions)
DRIVER_INTERFACE_VERSIONS = {'storage': '1.33', 'rescue': '1.38', 'bios': '1.40',
                             'firmware': '1.86'}

LIST_PARAMS = ('type', 'detail', 'fields')


def interface_field(kind):
    return '%s_interface' % kind


def default_interfaces(driver):
    """``{<kind>_interface: default}`` of hardware type ``driver``."""
    return {interface_field(k): d for k, (_e, d) in HARDWARE_TYPES[driver].items()}
