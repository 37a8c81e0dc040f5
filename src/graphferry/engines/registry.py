"""The engine registry: every engine a run may name, in one place.

The partition engines (each moves or reads one partition's edges its own way)
are listed in :data:`ENGINES` here. An engine composed above this layer is
registered with :func:`register` by the layer that composes it: the runtime's
loaded graph registers the scheduler's ``hybrid`` (which places each partition on
one of these per iteration), so it is known wherever the runtime is, and engines
never import the scheduler. Readers (the command line, the runtime's name check,
the benchmarks) take names from :func:`names` and classes from :func:`engine_class`,
and lists of engines by their traits from :func:`names_where`; adding an engine is
its file plus one entry here (or one ``register`` call).

Example:
    >>> from graphferry.engines import registry
    >>> registry.PARTITION_ENGINES
    ('host', 'resident', 'filter', 'compaction', 'zerocopy', 'unified')
    >>> import graphferry.runtime   # the runtime's import registers the scheduler's hybrid
    >>> registry.names()
    ('host', 'resident', 'filter', 'compaction', 'zerocopy', 'unified', 'hybrid')
    >>> registry.engine_class("filter").__name__
    'FilterEngine'
    >>> registry.engine_class("fast")
    Traceback (most recent call last):
    ...
    ValueError: unknown engine 'fast'; choose one of compaction, filter, host, hybrid, resident, unified, zerocopy
"""

from __future__ import annotations

from .compaction import CompactionEngine
from .filter import FilterEngine
from .host import HostEngine
from .resident import ResidentEngine
from .unified import UnifiedEngine
from .zerocopy import ZeroCopyEngine

ENGINES = {e.name: e for e in (HostEngine, ResidentEngine, FilterEngine, CompactionEngine,
                               ZeroCopyEngine, UnifiedEngine)}
#: The partition engines alone (composites such as hybrid register later, into ENGINES).
PARTITION_ENGINES: tuple[str, ...] = tuple(ENGINES)


def register(cls: type) -> type:
    """Add an engine composed in a higher layer (by its ``name``); returns it, so it can decorate."""
    known = ENGINES.get(cls.name)
    if known is not None and known is not cls:
        raise ValueError(f"engine name {cls.name!r} is taken by {known.__qualname__}")
    ENGINES[cls.name] = cls
    return cls


def names_where(**traits) -> tuple[str, ...]:
    """The registered engines whose traits (:class:`~graphferry.engines.base.Engine`) have the
    given values, in registry order: every list of engines is one of these.

    Example:
        >>> names_where(hybrid_places=True, on_device=True)
        ('resident', 'filter', 'compaction', 'zerocopy')
        >>> names_where(on_device=False)
        ('host',)
    """
    return tuple(name for name, cls in ENGINES.items()
                 if all(getattr(cls, trait) == value for trait, value in traits.items()))


def names() -> tuple[str, ...]:
    """Every engine a run may name, partition engines first, in registry order."""
    return tuple(ENGINES)


def engine_class(name: str):
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(sorted(ENGINES))}") from None
