"""The shape of ``_ext/handbook``: an import graph without cycles, lazy
imports included (an import inside a function hides a cycle until the day
the order of loading changes), and extensions loaded by name included
(``app.setup_extension('handbook.x.y')`` imports and sets up that module as
surely as an import statement: a concern that loads another depends on it)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / '_ext' / 'handbook'
#: the calls that load extensions by name: Sphinx's, and the concerns' helper
#: (``handbook.setup_concern(app, 'handbook.x.y', …)``)
LOADERS = frozenset({'setup_extension', 'setup_concern'})


def modules(package: Path) -> dict[str, Path]:
    """Every module of *package*, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(package.rglob('*.py')):
        parts = path.relative_to(package.parent).with_suffix('').parts
        if parts[-1] == '__init__':
            parts = parts[:-1]
        found['.'.join(parts)] = path
    return found


def loaded(node: ast.Call) -> list[str]:
    """The names an extension-loading call (:data:`LOADERS`) gives as strings."""
    called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
        node.func, 'id', None)
    if called not in LOADERS:
        return []
    given = [*node.args, *(keyword.value for keyword in node.keywords)]
    return [arg.value for arg in given
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of *known* that module *name* imports, anywhere in it, or
    loads as an extension by name (:func:`loaded`)."""
    package = name if path.name == '__init__.py' else name.rpartition('.')[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                up = package.split('.')[:len(package.split('.')) - node.level + 1]
                base = '.'.join([*up, base] if base else up)
            for alias in node.names:
                target = f'{base}.{alias.name}'
                if target in known:
                    found.add(target)
                elif base in known:
                    found.add(base)
        elif isinstance(node, ast.Call):
            found.update(target for target in loaded(node) if target in known)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def graph_of(package: Path) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def test_the_import_graph_has_no_cycle():
    assert cycles(graph_of(PACKAGE)) == []


def test_a_cycle_is_found_even_through_a_lazy_import(tmp_path):
    # the check itself: a cycle hidden in a function, through a relative import
    package = tmp_path / 'pkg'
    (package / 'sub').mkdir(parents=True)
    (package / '__init__.py').write_text('')
    (package / 'sub' / '__init__.py').write_text('')
    (package / 'a.py').write_text('from pkg.sub import b\n')
    (package / 'sub' / 'b.py').write_text('def f():\n    from ..c import g\n')
    (package / 'c.py').write_text('import pkg.a\ndef g(): pass\n')
    (package / 'd.py').write_text('from pkg import a\n')
    assert cycles(graph_of(package)) == [['pkg.a', 'pkg.c', 'pkg.sub.b']]


def test_a_cycle_is_found_through_an_extension_loaded_by_name(tmp_path):
    # the check itself: setup_extension('pkg.x') is an edge, as an import is
    package = tmp_path / 'pkg'
    package.mkdir()
    (package / '__init__.py').write_text(
        'def setup_concern(app, *modules):\n    for m in modules: app.setup_extension(m)\n')
    (package / 'a.py').write_text('def setup(app):\n    app.setup_extension("pkg.b")\n')
    (package / 'b.py').write_text('def setup(app):\n    app.setup_extension(extname="pkg.c")\n')
    (package / 'c.py').write_text('import pkg.a\n')
    (package / 'd.py').write_text(
        'from pkg import setup_concern\ndef setup(app):\n    setup_concern(app, "pkg.e")\n')
    (package / 'e.py').write_text(
        'def setup(app):\n    app.setup_extension("sphinx.ext.todo")\n    setup_extension("pkg.d")\n')
    graph = graph_of(package)
    assert graph['pkg.b'] == {'pkg.c'} and graph['pkg'] == set()  # a variable: no edge
    assert cycles(graph) == [['pkg.a', 'pkg.b', 'pkg.c'], ['pkg.d', 'pkg.e']]


def test_extensions_loaded_by_name_are_edges():
    graph = graph_of(PACKAGE)
    assert {'handbook.core.removed_pages', 'handbook.core.warned_pages'} <= graph['handbook.store']
    assert {'handbook.cards.links', 'handbook.cards.markup'} <= graph['handbook.cards']


def test_the_shared_nodes_are_a_leaf():
    # every concern imports handbook.nodes; it imports no handbook module
    graph = graph_of(PACKAGE)
    assert graph['handbook.nodes'] == set()
    assert {'handbook.store', 'handbook.rulings.lines', 'handbook.cards.links'} <= {
        name for name, targets in graph.items() if 'handbook.nodes' in targets}


def test_rulings_do_not_import_publishing_or_listings():
    graph = graph_of(PACKAGE)
    for name, targets in graph.items():
        if name.startswith('handbook.rulings'):
            assert not {t for t in targets
                        if t.startswith(('handbook.publishing', 'handbook.listings'))}, name


def test_no_feature_imports_the_speed_package():
    # the speed package is opt-in: every feature works without it
    graph = graph_of(PACKAGE)
    importers = {name for name, targets in graph.items() if not name.startswith('handbook.speed')
                 and any(t == 'handbook.speed' or t.startswith('handbook.speed.') for t in targets)}
    assert importers == set()
