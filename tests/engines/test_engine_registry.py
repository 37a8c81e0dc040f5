"""The registries know their entries without side-effect imports.

The engine registry lists every engine, the scheduler's composed ``hybrid`` included, when it is
the only module imported (a fresh interpreter, so nothing a test imported earlier has registered
anything); the hybrid's module is imported on its first lookup, not before. The NetworkX backend's
registration module answers every function NetworkX is told about (``_graphferry_nx``, the
import-free list) through :func:`~graphferry.nx_backend.registration.registered`, with nothing
else imported first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphferry.engines import registry

SRC = Path(__file__).resolve().parents[2] / "src"


def fresh(code: str) -> dict:
    """What ``code`` prints as JSON, run in a new interpreter with this checkout's ``src`` first."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_engine_registry_alone_lists_every_engine_and_imports_the_hybrid_on_lookup():
    got = fresh(
        "import json, sys\n"
        "from graphferry.engines import registry\n"
        "names = registry.names()\n"
        "before = sorted(m for m in sys.modules if m.startswith(('graphferry.scheduler', 'graphferry.runtime')))\n"
        "hybrid = registry.engine_class('hybrid')\n"
        "print(json.dumps({'names': names, 'above_before_lookup': before,\n"
        "                  'hybrid': f'{hybrid.__module__}.{hybrid.__qualname__}',\n"
        "                  'schedules': registry.names_where(schedules=True),\n"
        "                  'names_after': registry.names()}))\n")
    assert got["names"] == ["host", "resident", "filter", "compaction", "zerocopy", "unified", "hybrid"]
    assert got["above_before_lookup"] == []          # listing imported nothing above the engines
    assert got["hybrid"] == "graphferry.scheduler.hybrid.HybridEngine"
    assert got["schedules"] == ["hybrid"]
    assert got["names_after"] == got["names"]        # the lookup kept the order


def test_every_composed_entry_names_an_engine_class_of_that_name():
    from graphferry.engines.base import Engine

    for name in registry.COMPOSED:
        cls = registry.engine_class(name)
        assert issubclass(cls, Engine) and cls.name == name


def test_a_name_taken_by_a_composed_engine_cannot_be_registered_again():
    class Impostor:
        name = "hybrid"

    with pytest.raises(ValueError, match="taken by HybridEngine"):
        registry.register(Impostor)
    with pytest.raises(ValueError, match="unknown engine 'fast'; choose one of compaction, .*hybrid"):
        registry.engine_class("fast")


def test_the_networkx_registration_alone_answers_every_function_networkx_is_told_about():
    pytest.importorskip("networkx")
    got = fresh(
        "import json\n"
        "from graphferry.nx_backend import registration\n"
        "from _graphferry_nx.functions import FUNCTIONS as told\n"
        "print(json.dumps({'registered': sorted(registration.registered()), 'told': sorted(told)}))\n")
    assert got["registered"] == got["told"] and "pagerank" in got["told"]
