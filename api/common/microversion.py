"""The microversion type both REST APIs use: a ``major.minor`` Version, ordered.

Each API keeps its own list, negotiation and header (api/placement/microversion.py,
api/baremetal/version.py) and names every version a handler compares with a
constant there; handlers compare ``req.version`` with those constants only.
The text is read by microversion-parse (the library Placement parses its
headers with); this type adds comparing with a version's text.
"""

from __future__ import annotations

import functools

import microversion_parse


class InvalidVersion(ValueError):
    """The text is not ``major.minor`` (an API answers 400)."""


@functools.total_ordering
class Version:
    """A microversion; compares with another Version or with its ``'1.2'`` text."""

    __slots__ = ('major', 'minor')

    def __init__(self, major: int, minor: int) -> None:
        self.major = major
        self.minor = minor

    @classmethod
    def parse(cls, text: str) -> Version:
        try:
            parsed = microversion_parse.parse_version_string(text)
        except TypeError:       # the library's word for "not major.minor"
            raise InvalidVersion('invalid version string: %s' % text) from None
        return cls(parsed.major, parsed.minor)

    def _tuple(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (Version, str)):
            return NotImplemented
        return self._tuple() == _coerce(other)._tuple()

    def __lt__(self, other: Version | str) -> bool:
        return self._tuple() < _coerce(other)._tuple()

    def __hash__(self) -> int:
        return hash(self._tuple())

    def __str__(self) -> str:
        return '%d.%d' % self._tuple()

    __repr__ = __str__

    def matches(self, min_version: Version | str | None = None,
                max_version: Version | str | None = None) -> bool:
        """True when min_version <= self <= max_version (either may be None)."""
        if min_version is not None and self < min_version:
            return False
        if max_version is not None and self > max_version:
            return False
        return True


def _coerce(value: Version | str) -> Version:
    return value if isinstance(value, Version) else _parse_cached(value)


@functools.lru_cache(maxsize=256)
def _parse_cached(text: str) -> Version:
    # a version text compared on every item of a listing (10000 providers
    # -> 70000 comparisons) is parsed once
    return Version.parse(text)
