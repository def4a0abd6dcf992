# SPDX-License-Identifier: Apache-2.0
"""fastaudit._workspace as a module: one interpreter per process, the
symlink modes named from the engine's table."""
import os
import sys
import textwrap

import pytest

from fastaudit import _workspace
from fastaudit.workspace import Workspace

_testcapi = pytest.importorskip('_testcapi')


def test_a_second_interpreter_cannot_import_it(tmp_path):
    out = tmp_path / 'result'
    code = textwrap.dedent(f'''
        import sys
        sys.path[:] = {sys.path!r}
        try:
            import fastaudit._workspace
            r = 'imported'
        except ImportError as e:
            r = 'ImportError: ' + str(e)
        with open({str(out)!r}, 'w') as f:
            f.write(r)
    ''')
    assert _testcapi.run_in_subinterp(code) == 0
    assert out.read_text().startswith('ImportError'), out.read_text()


def test_importing_again_in_this_interpreter_reuses_the_module_state(tmp_path):
    import importlib
    again = importlib.import_module('fastaudit._workspace')
    assert again.WorkspaceEscapeError is _workspace.WorkspaceEscapeError


def modes():
    """The mode names, from the module's SYMLINKS_* constants."""
    return {name[len('SYMLINKS_'):].lower().replace('_', '-'): value
            for name, value in vars(_workspace).items() if name.startswith('SYMLINKS_')}


def test_each_symlink_mode_has_its_constant_and_name(tmp_path):
    found = modes()
    assert {'trust', 'beneath', 'nofollow'} <= set(found)
    assert sorted(found.values()) == list(range(len(found)))
    for mode in found:
        with Workspace(tmp_path, symlinks=mode) as ws:
            assert ws.symlinks == mode


def test_an_unknown_mode_is_a_value_error_naming_the_modes(tmp_path):
    with pytest.raises(ValueError) as e:
        Workspace(tmp_path, symlinks='follow')
    for mode in modes():
        assert mode in str(e.value)
