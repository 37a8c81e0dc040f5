"""The shape of src/: no file over 800 lines, no function over 80, no import cycle between packages.

Read with the standard library's ``ast`` (no import runs). What is over a limit today is listed
here, each with what it waits for (delete its line once it is under: nothing else does, so that
a fix landing elsewhere never turns this test red). Anything new over a limit fails.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "graphferry"
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80

#: files over the limit today (path under src/graphferry) and why they are still
LONG_FILES = {
}
#: functions over the limit today ("path:qualified name")
LONG_FUNCTIONS = {
}
#: functions of bench/*.py and dev/*.py over the limit today ("bench/x.py:qualified name"): the same
#: limit holds for the benchmarks and tools (a main of 300 lines hides what a run measures)
LONG_SCRIPT_FUNCTIONS: dict[str, str] = {
}
#: package-level cycles today (sorted members), what untangles them
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}
#: modules kept only so old imports work, re-exporting a package that sits elsewhere
SHIMS = {"algorithms.hypar", "backends.cpu.host_ops", "backends.cpu.compiler"}


def sources():
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), path.read_text()


def functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + node.name
            yield name, node.end_lineno - node.lineno + 1
            yield from functions(node, name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, prefix + node.name + ".")
        else:
            yield from functions(node, prefix)


def test_no_file_over_800_lines():
    long = {rel: len(text.splitlines()) for rel, text in sources() if len(text.splitlines()) > MAX_FILE_LINES}
    assert set(long) - set(LONG_FILES) == set(), f"files over {MAX_FILE_LINES} lines: {long}"


def test_no_function_over_80_lines():
    long = {f"{rel}:{name}": n for rel, text in sources()
            for name, n in functions(ast.parse(text)) if n > MAX_FUNCTION_LINES}
    assert set(long) - set(LONG_FUNCTIONS) == set(), f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def scripts():
    """The benchmarks' and tools' files (``bench/*.py``, ``dev/*.py``), as ``(path under the root, text)``."""
    root = SRC.parent.parent
    for folder in ("bench", "dev"):
        for path in sorted((root / folder).glob("*.py")):
            yield path.relative_to(root).as_posix(), path.read_text()


def test_no_bench_or_dev_function_over_80_lines():
    long = {f"{rel}:{name}": n for rel, text in scripts()
            for name, n in functions(ast.parse(text)) if n > MAX_FUNCTION_LINES}
    assert set(long) - set(LONG_SCRIPT_FUNCTIONS) == set(), f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def _unit(module: str) -> str:
    """The package (or top-level module) of ``graphferry.x.y``: ``x``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _exists(module: str) -> bool:
    path = SRC.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(rel: str, text: str):
    """Modules of graphferry that ``rel`` imports, at module level or inside functions (not under
    ``if TYPE_CHECKING``, which never runs)."""
    module = "graphferry." + rel[:-3].replace("/", ".")
    package = module.rsplit(".", 1)[0] if not rel.endswith("__init__.py") else module[: -len(".__init__")]
    tree = ast.parse(text)
    typing_only = {id(sub) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for sub in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = node.module
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            # ``from X import m`` of a module m depends on X.m; of any other name, on X's own namespace
            # (which, for the top-level package, is what its __init__ hands out)
            modules = [f"{target}.{a.name}" for a in node.names if _exists(f"{target}.{a.name}")]
            yield from modules
            if len(modules) < len(node.names):
                yield target


def _is_ours(module: str | None) -> bool:
    """Whether ``module`` is graphferry's: the top-level package itself counts (``import graphferry``
    or ``from graphferry import load`` inside a subpackage depends on what ``graphferry/__init__.py``
    hands out, so an edge to it can close a cycle)."""
    return bool(module) and (module == "graphferry" or module.startswith("graphferry."))


def package_graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for rel, text in sources():
        if rel[:-3].replace("/", ".") in SHIMS:
            continue
        here = _unit("graphferry." + rel[:-3].replace("/", "."))
        for target in _imports(rel, text):
            if _is_ours(target) and _exists(target) and _unit(target) != here:
                edges[here].add(_unit(target))
    return edges


def cycles(edges: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.add(tuple(sorted(group)))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_no_import_cycle_between_packages():
    found = cycles(package_graph())
    assert found - set(KNOWN_CYCLES) == set(), f"new import cycles between packages: {found - set(KNOWN_CYCLES)}"


def test_hypar_host_ops_and_the_scheduler_import_down_only():
    # the packages this seam moved or touched: none imports a package above it
    edges = package_graph()
    assert "algorithms" not in edges["host_ops"] | edges["engines"] | edges["scheduler"] | edges["backends"]
    assert "runtime" not in edges["host_ops"] | edges["engines"] | edges["scheduler"] | edges["backends"]
    assert not edges["host_ops"] - {"errors", "workfiles", "phase_clock"}  # phase_clock: a leaf, as errors is
    assert "hypar" not in edges["algorithms"]
    assert "distributed" not in edges["runtime"]      # the ranks' loader is handed down (runtime.use_ranks)


def test_imports_of_the_top_level_package_are_edges():
    # `import graphferry` (or a name from its __init__) inside a subpackage depends on what the
    # top-level package hands out (the runtime, io, graph: its edges), so it can close a cycle
    assert list(_imports("io/x.py", "import graphferry\n")) == ["graphferry"]
    assert list(_imports("io/x.py", "from .. import __version__\n")) == ["graphferry"]
    assert list(_imports("io/x.py", "from graphferry import load\n")) == ["graphferry"]
    assert list(_imports("io/x.py", "from .. import host_ops\n")) == ["graphferry.host_ops"]  # a module: itself
    assert _unit("graphferry") == "__init__" and {"runtime", "io"} <= package_graph()["__init__"]
    found = cycles({**package_graph(), "store": package_graph()["store"] | {"__init__"}})
    assert any("__init__" in c and "store" in c for c in found)


def _package_of(rel: str) -> str:
    """The package a file under src/graphferry imports relative to: ``io/x.py`` -> ``graphferry.io``."""
    module = "graphferry." + rel[:-3].replace("/", ".")
    return module[: -len(".__init__")] if rel.endswith("__init__.py") else module.rsplit(".", 1)[0]


def _bound_modules(text: str, package: str | None):
    """The imports in a file that bind a graphferry module to a name: ``(line, name)``
    (``package``: what its relative imports start from; None outside src/graphferry)."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _is_ours(a.name):
                    yield node.lineno, a.asname or a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            target = node.module
            if node.level:
                if package is None:
                    continue
                base = package.split(".")
                target = ".".join(base[: len(base) - (node.level - 1)] + ([node.module] if node.module else []))
            for a in node.names:
                if _is_ours(target) and _exists(f"{target}.{a.name}"):
                    yield node.lineno, a.asname or a.name


def test_no_module_is_imported_for_its_side_effects():
    # registration is explicit (engines.registry.COMPOSED, nx_backend.registration.registered()):
    # an imported module whose name the file never uses was imported for what its import does
    root = SRC.parent.parent
    files = [("src/graphferry/" + rel, text) for rel, text in sources()
             if rel[:-3].replace("/", ".") not in SHIMS]
    files += [(rel, text) for rel, text in scripts()]
    files += [(p.relative_to(root).as_posix(), p.read_text()) for p in sorted((root / "tests").rglob("*.py"))]
    unused = []
    for rel, text in files:
        tree = ast.parse(text)
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {c.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
                 for c in ast.walk(n.value) if isinstance(c, ast.Constant)}
        package = _package_of(rel[len("src/graphferry/"):]) if rel.startswith("src/") else None
        for line, name in _bound_modules(text, package):
            if name not in used:
                unused.append(f"{rel}:{line} {name}")
    assert unused == [], f"modules imported only for their side effects: {unused}"
