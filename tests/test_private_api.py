"""The handbook stands on the libraries' public APIs: no ``._name`` of a
Sphinx, docutils, furo or jieba object, and no assignment into another
library's module, class or global table, anywhere in ``_ext/`` -- but for
the speed package's allow-list (:data:`handbook.speed.ALLOWED`), where each
entry says why and which library versions it was written for.

The check reads the code (``ast``):

* a ``._name`` (not ``__dunder__``) is the library's where no module of
  ``_ext/`` defines that name (a function, a class attribute, an attribute
  set on ``self``), or where a class of ``_ext/`` that subclasses a library
  class defines or reads a name the library class has;
* an assignment, deletion, ``setattr`` or in-place change (``update``,
  ``append``, ``[…] =`` …) whose target is reached from a library module or
  from a name imported from one (``zh.jieba_load_userdict = …``,
  ``sphinx.search.languages['zh'] = …``), or from an object made by a
  library class in the same function (``tokenizer = jieba.Tokenizer()``,
  then ``tokenizer.FREQ = …``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from docutils import nodes as docutils_nodes
from handbook.speed import ALLOWED

EXT = Path(__file__).resolve().parent.parent / '_ext'
LIBRARIES = ('sphinx', 'docutils', 'furo', 'jieba')
MUTATORS = {'update', 'setdefault', 'pop', 'popitem', 'clear', 'append', 'extend', 'insert',
            'remove', 'discard', 'add', '__setitem__', '__delitem__'}


def library(dotted: str | None) -> bool:
    return bool(dotted) and dotted.split('.')[0] in LIBRARIES


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def imported(tree: ast.Module) -> dict[str, str]:
    """Each name a module binds by an import, and what it names (dotted)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split('.')[0]] = \
                    alias.name if alias.asname else alias.name.split('.')[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f'{node.module}.{alias.name}'
    return names


def root_of(node: ast.expr) -> str | None:
    """The name an attribute or subscript chain starts from."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def resolve(dotted: str):
    """The object *dotted* names (a module, or an attribute of one), or None."""
    parts = dotted.split('.')
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module('.'.join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        return found
    return None


def private(name: str) -> bool:
    return name.startswith('_') and not (name.startswith('__') and name.endswith('__'))


def defined_names(trees: dict[str, ast.Module]) -> set[str]:
    """The private names the code of ``_ext/`` defines itself."""
    ours = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                ours.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    for found in ast.walk(target):
                        if isinstance(found, ast.Name):
                            ours.add(found.id)
                        elif isinstance(found, ast.Attribute) and \
                                isinstance(found.value, ast.Name) and found.value.id == 'self':
                            ours.add(found.attr)
            elif isinstance(node, ast.arg):
                ours.add(node.arg)
    return {name for name in ours if private(name)}


def library_bases(cls: ast.ClassDef, names: dict[str, str]) -> list[type]:
    """The library classes *cls* subclasses directly."""
    found = []
    for base in cls.bases:
        dotted = None
        if isinstance(base, ast.Name) and base.id in names:
            dotted = names[base.id]
        elif isinstance(base, ast.Attribute):
            root = root_of(base)
            if root in names:
                dotted = names[root] + ast.unparse(base)[len(root):]
        if library(dotted):
            resolved = resolve(dotted)
            if inspect.isclass(resolved):
                found.append(resolved)
    return found


def problems(root: Path) -> list[tuple[str, int, str]]:
    """``(module, line, what)`` of every use of a library's private name or
    write into a library's state under *root* (a folder of packages)."""
    trees = {module_name(path, root): ast.parse(path.read_text(encoding='utf-8'))
             for path in sorted(root.rglob('*.py'))}
    ours = defined_names(trees)
    found = []
    for module, tree in trees.items():
        names = imported(tree)
        libs = {name for name, dotted in names.items() if library(dotted)}

        def report(node: ast.AST, what: str) -> None:
            found.append((module, node.lineno, what))

        # classes that subclass a library class: the names they share with it
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            bases = library_bases(cls, names)
            if not bases:
                continue
            for node in ast.walk(cls):
                name = None
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = node.name
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                        and node.value.id in ('self', 'cls'):
                    name = node.attr
                if name and private(name) and any(hasattr(base, name) for base in bases):
                    report(node, f'{name} of {bases[0].__module__}.{bases[0].__qualname__}')
        # objects made by a library class, by function
        made: set[tuple[int, str]] = set()
        for function in (n for n in ast.walk(tree)
                         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for node in ast.walk(function):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    call = root_of(node.value.func)
                    made_by = resolve(names[call] + ast.unparse(node.value.func)[len(call):]) \
                        if call in libs else None
                    if inspect.isclass(made_by) and not issubclass(made_by, docutils_nodes.Node):
                        for target in node.targets:
                            if isinstance(target, ast.Name):
                                made.add((id(function), target.id))
        for function in [tree, *(n for n in ast.walk(tree)
                                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
            local = {name for key, name in made if key == id(function)}
            for node in ast.walk(function):
                if isinstance(node, ast.Attribute) and private(node.attr) \
                        and node.attr not in ours:
                    report(node, node.attr)
                targets: list[ast.expr] = []
                if isinstance(node, (ast.Assign, ast.Delete)):
                    targets = node.targets
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                elif isinstance(node, ast.Call):
                    func = node.func
                    if isinstance(func, ast.Name) and func.id in ('setattr', 'delattr') \
                            and node.args:
                        targets = [node.args[0]]
                    elif isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                        targets = [func.value]
                for target in targets:
                    for each in (target.elts if isinstance(target, ast.Tuple) else [target]):
                        if not isinstance(each, (ast.Attribute, ast.Subscript, ast.Name)):
                            continue
                        start = root_of(each)
                        if isinstance(each, ast.Name) and not isinstance(node, ast.Call):
                            continue  # a plain name is bound, not written into
                        if start in libs or start in local:
                            report(node, f'writes into {ast.unparse(each)}')
    return sorted(set(found))


def allowed(module: str, what: str) -> bool:
    return any(module == entry.module and entry.name in what for entry in ALLOWED)


def test_the_handbook_uses_no_private_name_of_the_libraries_and_writes_into_none():
    found = [problem for problem in problems(EXT) if not allowed(problem[0], problem[2])]
    assert found == []


def test_every_allowance_is_in_the_speed_package_and_used():
    used = {(module, entry.name) for module, _line, what in problems(EXT)
            for entry in ALLOWED if module == entry.module and entry.name in what}
    for entry in ALLOWED:
        assert entry.module.startswith('handbook.speed.'), entry
        assert (entry.module, entry.name) in used or entry.name == 'NestedStateMachine', \
            f'{entry} allows what no code does'


def test_the_check_finds_what_it_is_for(tmp_path):
    package = tmp_path / 'pkg'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'bad.py').write_text(
        'import sphinx.search\n'
        'from sphinx.search import zh\n'
        'from sphinx.builders.html import StandaloneHTMLBuilder\n'
        'import jieba\n'
        'zh.jieba_load_userdict = print\n'
        "sphinx.search.languages['zh'] = None\n"
        'sphinx.search.languages.update({})\n'
        'def f(app, env):\n'
        '    tokenizer = jieba.Tokenizer()\n'
        '    tokenizer.FREQ = {}\n'
        '    return env._search_index_titles, app.builder._get_local_toctree\n'
        'class B(StandaloneHTMLBuilder):\n'
        '    def _write_serial(self, docnames):\n'
        '        self._ours = 1\n'
        '        return self._ours\n')
    (package / 'good.py').write_text(
        'from sphinx.search import SearchLanguage\n'
        'class L(SearchLanguage):\n'
        '    def __init__(self, options):\n'
        '        super().__init__(options)\n'
        '        self._cut = {}\n'
        '    def cut(self):\n'
        '        return self._cut\n')
    found = {(line, what) for module, line, what in problems(tmp_path)}
    assert found == {
        (5, 'writes into zh.jieba_load_userdict'),
        (6, "writes into sphinx.search.languages['zh']"),
        (7, 'writes into sphinx.search.languages'),
        (10, 'writes into tokenizer.FREQ'),
        (11, '_search_index_titles'), (11, '_get_local_toctree'),
        (13, '_write_serial of sphinx.builders.html.StandaloneHTMLBuilder'),
    }
