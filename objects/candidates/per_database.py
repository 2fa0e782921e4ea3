"""One object per database handle, per process: the candidate search's in-memory state.

The provider index, the names known per change token and the answer cache
each belong to one :class:`db.api.Database`.  They are made on first use and
go with the handle (a weak key): a test's or a bench's stopped deployment
leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
import threading
from typing import Any, Generic, TypeVar
import weakref

T = TypeVar('T')


class PerDatabase(Generic[T]):
    """``registry(db)``: the object ``factory()`` made for ``db`` (made on first use)."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._objects: weakref.WeakKeyDictionary[Any, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def __call__(self, db: Any) -> T:
        with self._lock:
            found = self._objects.get(db)
            if found is None:
                found = self._objects[db] = self._factory()
            return found

    def values(self) -> list[T]:
        """The objects of the handles still alive."""
        with self._lock:
            return list(self._objects.values())
