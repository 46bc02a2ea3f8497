"""The hidden test module, prepared once per source on the bot's side instead of in every job.

Each graded job needs three things derived from its test module: the classes it may hand the
learner's functions (:func:`shared_classes`, an AST walk that used to cost a seed-style grade
about a quarter of its CPU), whether it grades a whole program, and its code object. The
:class:`~sandbox.Sandbox` computes them once per test source (:func:`prepare`, kept for the last
:data:`CACHED` sources) and sends them with the job; the grader takes the code object as it is
when it was compiled by this same interpreter for the path it runs under, and compiles the
source itself otherwise (:func:`code_object`).

What reaches the learner's process is unchanged: only the shared classes, in the load request.
The code object travels where the test source always did (bot, template, supervisor, grader).
"""

from __future__ import annotations

import ast
import base64
import builtins
import functools
import importlib.util
import marshal
import re
import types
from typing import Any

from . import program
from ._messages import PreparedTest
from ._rootfs import JOB_WORKDIR

CACHED = 64
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
TEST_FILE = "test_code.py"


@functools.lru_cache(maxsize=CACHED)
def prepare(test_source: str) -> PreparedTest:
    """Return the prepared form of a test module (cached by its source)."""
    path = f"{JOB_WORKDIR}/{TEST_FILE}"
    code: str | None
    try:
        # optimize=0 whatever the bot runs under: a bot started with -O must not strip the test's asserts.
        compiled = compile(test_source, path, "exec", dont_inherit=True, optimize=0)
        code = base64.b64encode(marshal.dumps(compiled)).decode()
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        code = None  # the grader compiles it and reports the error as it always did
    return {
        "classes": shared_classes(test_source),
        "shared": shared_class_names(test_source),
        "program": program.is_program_test(test_source),
        "code": code,
        "magic": importlib.util.MAGIC_NUMBER.hex(),
        "path": path,
    }


def code_object(prepared: PreparedTest | None, source: str, path: str) -> types.CodeType:
    """Return the test module's code object: the prepared one when it fits, else compiled here."""
    if (
        prepared is not None
        and prepared.get("code")
        and prepared.get("magic") == importlib.util.MAGIC_NUMBER.hex()
        and prepared.get("path") == path
    ):
        try:
            code = marshal.loads(base64.b64decode(str(prepared["code"])))  # noqa: S302 - made by the bot's side
        except (ValueError, EOFError, TypeError):
            code = None
        if isinstance(code, types.CodeType):
            return code
    return compile(source, path, "exec", dont_inherit=True, optimize=0)


def shared_classes(test_source: str) -> str | None:
    """Return the test module cut to its imports and the classes it may hand the learner's functions.

    A test may pass the learner an object of its own class (a model to train); the learner's process
    rebuilds it from data, so it needs that class. Everything else (the tests, their helpers, their
    constants and expected values) is blanked out, line for line so line numbers stay right. None
    when the test defines no such class.
    """
    try:
        tree = ast.parse(test_source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    # Lines as the tokenizer counts them (str.splitlines would also break at a form feed or a U+2028,
    # shifting every later line: a test's line kept in place of a shared class's).
    lines = _LINE_BREAK.split(test_source.removesuffix("\n"))
    tests = _test_classes(tree)
    keep: set[int] = set()
    blank: set[int] = set()  # lines of anything not shared: a line holding both is blanked
    classes = 0
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        lines_of = range(first, (node.end_lineno or node.lineno) + 1)
        if isinstance(node, ast.ClassDef) and node.name not in tests:
            classes += 1
        elif not isinstance(node, (ast.Import, ast.ImportFrom)):
            blank.update(lines_of)
            continue
        keep.update(lines_of)
    keep -= blank
    if not classes:
        return None
    out = [line if n in keep else "" for n, line in enumerate(lines, 1)]
    for node in tree.body:  # an import sharing its line with something else goes alone
        if (
            isinstance(node, (ast.Import, ast.ImportFrom))
            and node.lineno == node.end_lineno
            and node.lineno in blank
        ):
            out[node.lineno - 1] = (
                out[node.lineno - 1] + "; " if out[node.lineno - 1] else ""
            ) + ast.unparse(node)
    return "\n".join(out) + "\n"


def shared_class_names(test_source: str) -> list[str]:
    """The names of the classes :func:`shared_classes` keeps: the only ones of the test the grader rebuilds."""
    try:
        tree = ast.parse(test_source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    tests = _test_classes(tree)
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef) and node.name not in tests]


def _test_classes(tree: Any) -> set[str]:
    """Return the names of the module's classes that never go to the learner: its tests and their kin.

    A class is shared only when every base is a builtin, a name the module imported (not from
    unittest) or an attribute of one, or a class shared before it. Any other class (a test under
    whatever name it reached ``TestCase``, a class on an assigned or computed base), every local
    class a test derives from (a mixin holding the tests' bodies) and every class derived from
    one of those stays with the grader.
    """
    imported: set[str] = set()
    unittest_names: set[str] = set()  # names bound to unittest or to something imported from it
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = (alias.asname or alias.name).split(".")[0]
                imported.add(bound)
                if alias.name.split(".")[0] == "unittest":
                    unittest_names.add(bound)
        elif isinstance(node, ast.ImportFrom):
            bound_names = {alias.asname or alias.name for alias in node.names}
            imported |= bound_names
            if (node.module or "").split(".")[0] == "unittest":
                unittest_names |= bound_names

    assigned = {  # a module-level name bound by other means may hold anything (``object = TestCase``)
        target.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.With))
        for target in ast.walk(node)
        if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)
    } | {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def root(base: Any) -> str | None:
        while isinstance(base, ast.Attribute):
            base = base.value
        return base.id if isinstance(base, ast.Name) else None

    defined = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    local = {node.name for node in defined}
    tests: set[str] = set()
    for node in defined:
        for base in node.bases:
            name = root(base)
            plain = (
                name is not None and name not in unittest_names and not ast.unparse(base).endswith("TestCase")
            )
            known = name in local or (
                name not in assigned and (name in imported or hasattr(builtins, str(name)))
            )
            if not (plain and known) or name in tests:
                tests.add(node.name)
        nested = (c for c in ast.walk(node) if isinstance(c, ast.ClassDef) and c is not node)
        if any(
            root(b) in unittest_names or ast.unparse(b).endswith("TestCase") for c in nested for b in c.bases
        ):
            tests.add(node.name)  # a test class inside it (``TestAnswer = Box.TestAnswer``)
    changed = True
    while changed:  # mixins of tests, and classes derived from tests or mixins
        changed = False
        for node in defined:
            names = {root(b) for b in node.bases} & local
            if node.name in tests and not names <= tests:
                tests |= {str(n) for n in names}
                changed = True
            elif node.name not in tests and names & tests:
                tests.add(node.name)
                changed = True
    return tests
