# SPDX-License-Identifier: Apache-2.0
"""Import-time side effects of declared modules (fastaudit_import_allow)."""
import importlib
import sys

import pytest


def fresh(name):
    for k in [k for k in sys.modules if k == name or k.startswith(name + '.')]:
        del sys.modules[k]


def test_entry_point_declared_import_allowed(mk, root):
    fresh('fa_importer')
    ap = mk([root])
    with ap():
        mod = importlib.import_module('fa_importer.sub')   # prefix covers submodules
    assert mod.VALUE == 2 and sys.modules['fa_importer'].VALUE == 2


def test_undeclared_import_denied(mk, root):
    fresh('fa_badimport')
    ap = mk([root])
    with ap():
        with pytest.raises(PermissionError, match=r'object\.__setattr__ blocked'):
            importlib.import_module('fa_badimport')
    assert 'fa_badimport' not in sys.modules


def test_allow_imports_argument_and_add_imports(mk, root):
    fresh('fa_hostimport')
    fresh('fa_lateimport')
    ap = mk([root], allow_imports=('fa_hostimport',))
    with ap():
        assert importlib.import_module('fa_hostimport').VALUE == 2
        with pytest.raises(PermissionError):
            importlib.import_module('fa_lateimport')
    assert ap.add_imports('fa_lateimport') == ('fa_hostimport', 'fa_importer', 'fa_lateimport')
    fresh('fa_lateimport')
    with ap():
        assert importlib.import_module('fa_lateimport').VALUE == 2


def test_allowance_ends_with_the_import(mk, root):
    fresh('fa_importer')
    ap = mk([root])
    with ap():
        mod = importlib.import_module('fa_importer')
        # after the import finished, the same module's code is ordinary code
        with pytest.raises(PermissionError):
            mod.f.__code__ = (lambda: 3).__code__


def test_refused_first_import_leaves_no_half_package(mk, root, tmp_path):
    pkg = tmp_path / 'fa_halfpkg'
    pkg.mkdir()
    (pkg / '__init__.py').write_text('from . import done\nimport os\nos.system("true")\n')
    (pkg / 'done.py').write_text('LOADED = True\n')
    sys.path.insert(0, str(tmp_path))
    try:
        with mk([root])():
            with pytest.raises(PermissionError):
                import fa_halfpkg  # noqa: F401
        # nothing of the broken import is left for the next one to trip over
        assert [k for k in sys.modules if k.startswith('fa_halfpkg')] == []
    finally:
        sys.path.remove(str(tmp_path))
