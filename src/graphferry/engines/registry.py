"""Engine names and how to pick one by name (``hybrid`` arrives with the cost model)."""

from __future__ import annotations

from .compaction import CompactionEngine
from .filter import FilterEngine
from .host import HostEngine
from .resident import ResidentEngine
from .unified import UnifiedEngine
from .zerocopy import ZeroCopyEngine

ENGINES = {e.name: e for e in (HostEngine, ResidentEngine, FilterEngine, CompactionEngine,
                               ZeroCopyEngine, UnifiedEngine)}


def engine_class(name: str):
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(sorted(ENGINES))}") from None
