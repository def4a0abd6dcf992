# SPDX-License-Identifier: Apache-2.0
"""The package describes itself: to a type checker and to inspect/help().

mypy --strict must pass on examples/typed_host.py (an agent runner using
the API as a host would) and must report exactly the errors marked in
typed_host_bad.py; the stubs must agree with the extensions as imported
(mypy.stubtest); every public callable must have a signature that
inspect can read, and every public name a docstring. mypy checks the
package the tests import: the build tree's (PYTHONPATH) or the installed
one, both found through this interpreter's sys.path.
"""
import inspect
import os
import re
import subprocess
import sys

import pytest

import fastaudit
import fastaudit.hooks
import fastaudit.workspace

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
HOST = os.path.join(TOP, 'examples', 'typed_host.py')
BAD = os.path.join(HERE, 'typed_host_bad.py')
MODULES = (fastaudit, fastaudit.workspace, fastaudit.hooks)

# Callables whose C method tables are outside this suite's reach and have
# no text signature yet. The test fails when one gains one, so that it
# leaves this list.
NO_SIGNATURE_YET = frozenset({
    'audit_perms',             # _fastaudit/ctx.c: a C object with tp_call, no __signature__
} if sys.version_info < (3, 13) else ())  # 3.13's inspect reads its tp_call

# Names the package's __init__.py re-exports in a form type checkers do not
# read (its __all__ is computed: list(__all__) + [...]), so that mypy
# --strict refuses "from fastaudit import NAME". The tests fail when this
# changes, so that the list goes with it.
NOT_EXPORTED_YET: frozenset[str] = frozenset()

_UNEXPORTED = re.compile(r': error: Module "fastaudit" does not explicitly export attribute '
                         r'"(\w+)"  \[attr-defined\]$')


class _Mypy:
    """mypy --strict on files: its errors, those of NOT_EXPORTED_YET apart."""

    def __init__(self, cwd, *files):
        pytest.importorskip('mypy')
        cmd = [sys.executable, '-m', 'mypy', '--strict', '--no-incremental',
               '--cache-dir', os.devnull, '--show-error-codes', '--no-error-summary',
               '--no-color-output', '--no-pretty', '--python-executable', sys.executable,
               *files]
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
        assert p.returncode in (0, 1) and not p.stderr, p.stdout + p.stderr
        self.errors, self.unexported = [], set()
        for line in p.stdout.splitlines():
            m = _UNEXPORTED.search(line)
            if m and m.group(1) in NOT_EXPORTED_YET:
                self.unexported.add(m.group(1))
            elif ': error: ' in line:
                self.errors.append(line)
        assert p.returncode == (1 if self.errors or self.unexported else 0), p.stdout

    def codes(self, path):
        """{(line, code)} of the errors, all in path."""
        name = re.escape(os.path.basename(path))
        got = [re.search(r'%s:(\d+): error: .*\[([a-z-]+)\]$' % name, e) for e in self.errors]
        assert all(got), self.errors
        return {(int(m.group(1)), m.group(2)) for m in got}


def test_typed_host_passes_mypy_strict(tmp_path):
    assert _Mypy(tmp_path, HOST).errors == []


def test_typed_host_runs(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    p = subprocess.run([sys.executable, HOST], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'inside: ok\n' in p.stdout
    assert re.search(r"^outside: refused \(outside-roots\): open '[^']*/stolen.txt' not in ",
                     p.stdout, re.M)
    assert "workspace refused '../escape.txt': escapes" in p.stdout
    assert p.stdout.endswith("result=42 reports=['inside.txt']\n")


def test_misuses_are_rejected(tmp_path):
    with open(BAD) as f:
        expected = {(i, code.strip()) for i, line in enumerate(f, 1)
                    for code in re.findall(r'# expect: ([a-z-]+)', line)}
    assert len(expected) >= 15
    mypy = _Mypy(tmp_path, BAD)
    got = mypy.codes(BAD)
    assert not got - expected, 'errors not marked in %s:\n%s' % (BAD, '\n'.join(mypy.errors))
    assert not expected - got, 'misuses mypy let through: %s' % sorted(expected - got)


def test_every_public_name_is_exported_to_type_checkers(tmp_path):
    src = tmp_path / 'uses_all.py'
    src.write_text(''.join('from %s import %s\n' % (m.__name__, ', '.join(m.__all__))
                           for m in MODULES))
    mypy = _Mypy(tmp_path, str(src))
    assert mypy.errors == []
    assert mypy.unexported == NOT_EXPORTED_YET, \
        'NOT_EXPORTED_YET should be %s' % sorted(mypy.unexported)


# What the stubs declare for type checkers alone (aliases, TypedDicts),
# and what stubtest asks that the stubs cannot say the same way for every
# mypy version this runs with.
_STUB_ONLY = '''
fastaudit\\._fastaudit\\.(BeforeDeny|OnCall|Symlinks|Denial|DenialInfo|HookDenial|LibcDenial)
fastaudit\\._fastaudit\\.(NativeDenial|AuditState)
fastaudit\\._workspace\\.Symlinks
# a disjoint base (PEP 800): only newer mypy versions know the decorator
fastaudit\\._workspace\\.Workspace
'''



# Differences that are right as they are: mk_audit's roots may be left out
# only with policy=, which its stub's overloads say and no text signature can.
_STUB_DIFFERENCES_OK = frozenset({
    'fastaudit._fastaudit.mk_audit is inconsistent, stub parameter "roots" has a default '
    'value but runtime parameter does not',
})

# Functions whose text signatures (in C files outside this suite's reach)
# disagree with what they accept, if any. The test fails when one is
# fixed, so that it leaves.
RUNTIME_SIGNATURE_GAPS = frozenset()


def test_stubs_match_the_extensions(tmp_path):
    pytest.importorskip('mypy.stubtest')
    allow = tmp_path / 'allowlist'
    allow.write_text(_STUB_ONLY)
    p = subprocess.run([sys.executable, '-m', 'mypy.stubtest', '--concise',
                        '--ignore-unused-allowlist', '--allowlist', str(allow),
                        'fastaudit._fastaudit', 'fastaudit._workspace'],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 1) and not p.stderr, p.stdout + p.stderr
    wrong = [line for line in p.stdout.splitlines() if line not in _STUB_DIFFERENCES_OK]
    assert {line.split()[0] for line in wrong} == RUNTIME_SIGNATURE_GAPS, '\n'.join(wrong)


def _members(qual, cls):
    """The public attributes a class of the package defines (inherited ones
    from builtins left out), as (qualified name, raw attribute)."""
    for attr in dir(cls):
        if attr.startswith('_'):
            continue
        owner = next(k for k in cls.__mro__ if attr in vars(k))
        if owner.__module__.split('.')[0] == 'fastaudit':
            yield '%s.%s' % (qual, attr), vars(owner)[attr]


def _public(tmp_path):
    """(qualified name, object) for every public name of the package, the
    public members of its classes, and of the objects mk_audit returns."""
    for mod in MODULES:
        yield mod.__name__, mod
        for name in mod.__all__:
            obj = getattr(mod, name)
            qual = '%s.%s' % (mod.__name__, name)
            yield qual, obj
            if inspect.isclass(obj):
                yield from _members(qual, obj)
    perms = fastaudit.mk_audit([str(tmp_path)], monitor_calls=False)
    yield 'audit_perms', perms
    yield from _members('audit_perms', type(perms))
    yield from _members('audit_context', type(perms()))


def _is_routine(obj):
    return callable(obj) and not isinstance(obj, (staticmethod, classmethod))


def test_every_public_callable_has_a_signature(tmp_path):
    missing, found = [], []
    for qual, obj in _public(tmp_path):
        if not _is_routine(obj) or inspect.ismodule(obj):
            continue
        try:
            inspect.signature(obj)
            ok = True
        except (ValueError, TypeError):
            ok = False
        if qual in NO_SIGNATURE_YET:
            found.append(qual) if ok else None
        elif not ok:
            missing.append(qual)
    assert not missing, 'inspect.signature() fails on: ' + ', '.join(missing)
    assert not found, 'these have a signature now; take them off NO_SIGNATURE_YET: ' + \
        ', '.join(found)


def test_every_public_name_has_a_docstring(tmp_path):
    missing = []
    for qual, obj in _public(tmp_path):
        documented = (_is_routine(obj) or inspect.isclass(obj) or inspect.ismodule(obj)
                      or inspect.isdatadescriptor(obj) or qual == 'fastaudit.UNCONFINED')
        if documented and not (inspect.getdoc(obj) or '').strip():
            missing.append(qual)
    assert not missing, 'no docstring: ' + ', '.join(missing)
