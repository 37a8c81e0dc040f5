"""The engine registry: every engine a run may name, in one place.

The partition engines (each moves or reads one partition's edges its own way)
are listed in :data:`ENGINES` here. An engine composed above this layer (the
scheduler's ``hybrid``, which places each partition on one of these per iteration)
is listed in :data:`COMPOSED` by where it lives, ``"module:Class"``, and imported
on first lookup: the registry knows every engine without importing a layer above
it, and no import anywhere is made for its side effect of registering. Readers
(the command line, the runtime's name check, the benchmarks) take names from
:func:`names` and classes from :func:`engine_class`, and lists of engines by their
traits from :func:`names_where`; adding an engine is its file plus one entry here
(or one :func:`register` call, as a test does for a toy engine).

Example:
    >>> from graphferry.engines import registry
    >>> registry.PARTITION_ENGINES
    ('host', 'resident', 'filter', 'compaction', 'zerocopy', 'unified')
    >>> registry.names()          # the composed hybrid is listed before anything imports it
    ('host', 'resident', 'filter', 'compaction', 'zerocopy', 'unified', 'hybrid')
    >>> registry.engine_class("filter").__name__
    'FilterEngine'
    >>> registry.engine_class("fast")
    Traceback (most recent call last):
    ...
    ValueError: unknown engine 'fast'; choose one of compaction, filter, host, hybrid, resident, unified, zerocopy
"""

from __future__ import annotations

import importlib

from .compaction import CompactionEngine
from .filter import FilterEngine
from .host import HostEngine
from .resident import ResidentEngine
from .unified import UnifiedEngine
from .zerocopy import ZeroCopyEngine

ENGINES = {e.name: e for e in (HostEngine, ResidentEngine, FilterEngine, CompactionEngine,
                               ZeroCopyEngine, UnifiedEngine)}
#: The partition engines alone (the composed ones join ENGINES when first looked up).
PARTITION_ENGINES: tuple[str, ...] = tuple(ENGINES)
#: Engines composed above this layer, by name: where each class lives (imported on first lookup,
#: so that this module imports nothing above the engines)
COMPOSED: dict[str, str] = {"hybrid": "graphferry.scheduler.hybrid:HybridEngine"}


def register(cls: type) -> type:
    """Add an engine composed in a higher layer (by its ``name``); returns it, so it can decorate."""
    known = engine_class(cls.name) if cls.name in ENGINES or cls.name in COMPOSED else None
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
    return tuple(name for name in names()
                 if all(getattr(engine_class(name), trait) == value for trait, value in traits.items()))


def names() -> tuple[str, ...]:
    """Every engine a run may name: partition engines first, then the composed ones, then any
    registered later, in registry order (nothing is imported to list them)."""
    return tuple(dict.fromkeys((*PARTITION_ENGINES, *COMPOSED, *ENGINES)))


def engine_class(name: str):
    """The class of engine ``name`` (a composed engine's module is imported on its first lookup)."""
    cls = ENGINES.get(name)
    if cls is None and name in COMPOSED:
        module, _, attribute = COMPOSED[name].partition(":")
        cls = ENGINES[name] = getattr(importlib.import_module(module), attribute)
    if cls is None:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(sorted(names()))}")
    return cls
