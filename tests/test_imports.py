"""The import graph of pbm/, read from the source (docs/architecture.md): no import circles, rooms
that depend downwards only, and a core that imports no game package."""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pbm

ROOT = Path(pbm.__file__).parent
GAMES = ("pbm.cr", "pbm.e18xx")
# The game kinds' own rooms: Continental Rails' printed turnsheets and turn reports.
CR_ROOMS = ("pbm.turnsheet", "pbm.report")
# Each kind's front door (pbm.kinds loads it): the one module that may use every room of its game, which
# is why it counts as a room of its own (Continental Rails' turnsheet intake is in pbm.turnsheet, which uses
# pbm.cr; pbm.cr.kind hands mail to it).
KIND_DOORS = ("pbm.cr.kind", "pbm.e18xx.kind")
# The command groups of one game kind (they may import it; the root and core groups may not).
GAME_COMMANDS = {"pbm.cli.cr": ("pbm.cr", *CR_ROOMS), "pbm.cli.turns": ("pbm.cr", *CR_ROOMS), "pbm.cli.report": CR_ROOMS, "pbm.cli.e18xx": ("pbm.e18xx",),
                 "pbm.cli.pbem": ("pbm.e18xx",)}



def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def resolve(name: str) -> str | None:
    """The module a dotted import name lands in (``pbm.x.y.Name`` → ``pbm.x.y``)."""
    mods = modules()
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


@lru_cache(maxsize=4)
def edges(explicit: bool = False, typing: bool = False) -> dict[str, set[tuple[str, bool]]]:
    """{module: {(imported module, at load time?)}}; imports under ``if TYPE_CHECKING`` are left out
    (they never run) unless ``typing`` (then they count, as not at load time).  Importing ``a.b.c``
    also runs ``a/__init__`` and ``a/b/__init__`` (left out with ``explicit``: only the modules named)."""
    out: dict[str, set[tuple[str, bool]]] = {}
    for name, path in modules().items():
        found: set[tuple[str, bool]] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]

        def visit_one(stmt: ast.stmt, top: bool) -> None:
            visit(ast.Module(body=[stmt], type_ignores=[]), top)

        def visit(node: ast.AST, top: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    if typing:
                        for sub in child.body:
                            visit_one(sub, False)
                    for sub in child.orelse:
                        visit(sub, top)
                    continue
                inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                targets: list[str] = []
                if isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1]
                                        + ([base] if base else []))
                    targets = [f"{base}.{alias.name}" for alias in child.names]
                elif isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                for target in targets:
                    if target.startswith("pbm"):
                        hit = resolve(target)
                        while hit:
                            if hit != name:
                                found.add((hit, inner))
                            hit = hit.rpartition(".")[0] if "." in hit and not explicit else None
                visit(child, inner)

        visit(ast.parse(path.read_text(encoding="utf-8")), True)
        out[name] = found
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def room(module: str) -> str:
    """The folder a module lives in (``pbm.mail.ingest`` → ``pbm.mail``; ``pbm.auth`` → itself)."""
    return ".".join(module.split(".")[:2])


def layer(module: str) -> str:
    """Its room, but a kind's front door is a layer of its own, above every room of its game."""
    return module if module in KIND_DOORS else room(module)


def test_the_graph_reads_real_imports():
    graph = edges()
    assert ("pbm.models", True) in graph["pbm.db"] or ("pbm.db", True) in graph["pbm.models"]
    assert ("pbm.cr.resolve", False) in graph["pbm.cr.kind"]  # a lazy import, found
    assert not any(target == "pbm.models" for target, _ in graph["pbm.auth"])  # TYPE_CHECKING only
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles_when_modules_load():
    graph = {m: {t for t, top in targets if top} for m, targets in edges().items()}
    assert cycles(graph) == []


def test_no_import_circles_counting_lazy_imports():
    """Imports made inside functions too: no module reaches back to itself."""
    graph = {m: {t for t, _ in targets} for m, targets in edges(explicit=True).items()}
    assert cycles(graph) == []


def test_no_import_circles_counting_typing_imports():
    """Imports made only for type checkers (``if TYPE_CHECKING:``) and lazy ones count too: the
    18xx rounds, steps, hooks and route finders type against ``core/protocol.py``, not ``Game``."""
    graph = {m: {t for t, _ in targets} for m, targets in edges(explicit=True, typing=True).items()}
    assert cycles(graph) == []


def test_typing_imports_are_read():
    typed = edges(explicit=True, typing=True)
    assert ("pbm.models", False) in typed["pbm.auth"] and ("pbm.models", False) not in edges(explicit=True)["pbm.auth"]
    assert ("pbm.e18xx.core.protocol", False) in typed["pbm.e18xx.rounds.operating"]


def test_no_circles_between_rooms():
    """Counting lazy imports too, the folders depend on each other one way only."""
    graph: dict[str, set[str]] = {}
    for module, targets in edges().items():
        for target, _ in targets:
            if layer(target) != layer(module):
                graph.setdefault(layer(module), set()).add(layer(target))
    graph.get("pbm", set()).clear()  # pbm/__init__ is the version string
    assert cycles(graph) == []


def game_imports(graph: dict[str, set[tuple[str, bool]]]) -> set[tuple[str, str]]:
    """(core module, game module) for every import of a game package (or its rooms) by a module
    outside the games, bar a game's own command group."""
    found = set()
    for module, targets in graph.items():
        if room(module) in GAMES + CR_ROOMS or module in ("pbm.cli", "pbm.__main__"):
            continue
        for target, _ in targets:
            if room(target) in GAMES + CR_ROOMS and room(target) not in GAME_COMMANDS.get(module, ()):
                found.add((module, target))
    return found


def test_the_checks_fail_on_a_bad_graph():
    bad = {"pbm.mail.ingest": {("pbm.cr.orders", False)}, "pbm.pipeline.cycle": {("pbm.report.send", True)},
           "pbm.cli.e18xx": {("pbm.e18xx.kind", True)}, "pbm.cli.cr": {("pbm.e18xx.kind", True)},
           "pbm.cr.kind": {("pbm.cr.resolve", False)}, "pbm.seats": {("pbm.models", True)}}
    assert game_imports(bad) == {("pbm.mail.ingest", "pbm.cr.orders"), ("pbm.pipeline.cycle", "pbm.report.send"),
                                 ("pbm.cli.cr", "pbm.e18xx.kind")}
    assert cycles({"x.a": {"x.b"}, "x.b": {"x.a"}}) == [["x.a", "x.b"]]
    assert cycles({"x.a": {"x.a"}, "x.b": {"x.a"}}) == []  # a module importing itself is no circle


def test_core_imports_no_game_package():
    """Mail, pipeline, CLI, seats, secrets, store: no import of Continental Rails or the 18xx
    package (or their rooms); they reach a game through the kinds registry only."""
    assert game_imports(edges(explicit=True)) == set()


def test_game_kinds_import_no_pipeline_mail_intake_or_cli():
    bad = {(m, t) for m, targets in edges().items() if room(m) in GAMES + CR_ROOMS
           for t, _ in targets
           if room(t) in ("pbm.pipeline", "pbm.cli") or t.startswith("pbm.mail.ingest")}
    assert bad == set()


def test_continental_rails_imports_nothing_from_mail():
    assert {(m, t) for m, targets in edges().items() if room(m) == "pbm.cr"
            for t, _ in targets if room(t) == "pbm.mail"} == set()


def test_one_game_kind_never_imports_another():
    bad = {(m, t) for m, targets in edges().items() if room(m) in GAMES
           for t, _ in targets if room(t) in GAMES and room(t) != room(m)}
    assert bad == set()


def test_every_registered_kind_implements_the_interface():
    from pbm.kinds import KINDS, GameKind, get_kind, kind_for_title

    for name in KINDS:
        kind = get_kind(name)
        assert isinstance(kind, GameKind) and kind.name == name
        assert kind.titles() and all(kind_for_title(t) == (kind, t) for t in kind.titles())
