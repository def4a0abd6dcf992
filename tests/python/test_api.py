# SPDX-License-Identifier: Apache-2.0
"""The public surface: names, signatures, audit_state, internal events."""
import gc
import sys

import pytest

import fastaudit
import fastaudit.core
from conftest import MON
from fastaudit import audit_state, mk_audit


def test_names_exported_from_package_and_core():
    for name in ('mk_audit', 'audit_state', 'track_call', 'active_calls', 'TrackedCall'):
        assert getattr(fastaudit, name) is getattr(fastaudit.core, name)
    assert fastaudit.TrackedCall._fields == ('fn', 'args', 'kwargs', 'module', 'qualname', 'name')


def test_mk_audit_signature_and_defaults():
    import inspect
    sig = inspect.signature(mk_audit)
    P = inspect.Parameter
    # The seed's parameters, in its order; what this package adds is keyword-only.
    assert [n for n, p in sig.parameters.items() if p.kind is P.POSITIONAL_OR_KEYWORD] == [
        'roots', 'before_deny', 'on_call', 'data', 'tool_id', 'monitor_calls', 'allow_imports']
    kwonly = [n for n, p in sig.parameters.items() if p.kind is P.KEYWORD_ONLY]
    for name in ('native', 'native_calls', 'policy', 'learn', 'symlinks', 'preset'):
        assert name in kwonly
    assert sig.parameters['preset'].default is None
    assert sig.parameters['tool_id'].default == 3
    assert sig.parameters['monitor_calls'].default is True
    assert sig.parameters['allow_imports'].default == ()


def test_audit_state_keys_and_activity(mk, root):
    ap = mk([root])
    st = audit_state()
    for k in ('safe_native', 'import_allow', 'monitoring', 'tool_id', 'active', 'monitor_on',
              'monitor_calls'):
        assert k in st
    assert st['active'] is False and st['monitor_calls'] is None
    assert st['monitoring'] is MON
    assert 'numpy' in st['safe_native'] and 'fa_safe_probe' in st['safe_native']
    assert 'fa_importer' in st['import_allow']
    with ap():
        inside = audit_state()
        assert inside['active'] is True
        assert inside['monitor_calls'] is MON
        assert inside['monitor_on'] == (1 if MON else 0)
        with ap():
            assert audit_state()['monitor_on'] == (2 if MON else 0)
        assert audit_state()['monitor_on'] == (1 if MON else 0)
    assert audit_state()['active'] is False
    assert audit_state()['monitor_on'] == 0
    if MON:
        assert st['tool_id'] == 3


@pytest.mark.skipif(MON, reason='3.10/3.11 only')
def test_monitor_calls_needs_312():
    with pytest.raises(RuntimeError, match=r'monitor_calls=True requires Python 3\.12\+ sys\.monitoring'):
        mk_audit(['/tmp'])
    with pytest.raises(RuntimeError):
        mk_audit(['/tmp'], monitor_calls=True)


def test_on_call_needs_monitoring():
    with pytest.raises(RuntimeError, match='on_call requires monitor_calls=True'):
        mk_audit(['/tmp'], on_call=lambda *a: None, monitor_calls=False)


@pytest.mark.skipif(not MON, reason='sys.monitoring is 3.12+')
def test_tool_id_clash():
    mk_audit(['/tmp'])
    with pytest.raises(RuntimeError, match='already uses sys.monitoring tool id 3'):
        mk_audit(['/tmp'], tool_id=4)


def test_none_means_unrestricted(mk, outside):
    ap = mk(None)
    with ap():
        (outside / 'f').write_text('x')
    assert (outside / 'f').read_text() == 'x'


def test_empty_roots_permit_nothing(mk, root):
    ap = mk([])
    with ap():
        with pytest.raises(PermissionError, match=r"not in \(\)"):
            open(root / 'f', 'w')
    assert not (root / 'f').exists()


def test_single_path_is_refused():
    with pytest.raises(TypeError, match='collection of paths'):
        mk_audit('/tmp', monitor_calls=False)


def test_internal_events_denied_inside(mk, root):
    ap = mk([root])
    other = mk([root])
    with ap():
        with pytest.raises(PermissionError, match=r'audit_perms\.set_config blocked'):
            mk_audit([str(root)], monitor_calls=False)
        with pytest.raises(PermissionError, match=r'audit_perms\.set_data blocked'):
            ap.set_data('x')
        with pytest.raises(PermissionError, match=r'audit_perms\.add_imports blocked'):
            ap.add_imports('os')
        with pytest.raises(PermissionError, match=r'audit_perms\.set_config blocked'):
            with other():
                pass
        # the same configuration nests freely
        with ap():
            assert audit_state()['active']
    assert ap.set_data(frozenset({1})) == frozenset({1})
    assert ap.add_imports('zz_mod', 'aa_mod')[:1] == ('aa_mod',)


def test_state_has_nothing_python_can_loosen(mk, root, outside):
    ap = mk([root])
    with pytest.raises((AttributeError, TypeError)):
        ap.roots = None
    with pytest.raises((AttributeError, TypeError)):
        ap.__dict__
    assert not any(isinstance(v, (set, list, dict)) and v for k, v in vars(fastaudit.core).items()
                   if k.startswith('_audit'))
    saved = [(mod, dict(vars(mod))) for mod in (fastaudit, fastaudit.core)]
    try:
        with ap():
            # a retry that "clears the deny list" or swaps helpers changes nothing
            for mod, names in saved:
                for name in names:
                    if not name.startswith('__'):
                        setattr(mod, name, None)
            with pytest.raises(PermissionError):
                open(outside / 'f', 'w')
    finally:
        for mod, names in saved:
            vars(mod).update(names)
    assert not (outside / 'f').exists()


def test_context_manager_single_use(mk, root):
    ap = mk([root])
    cm = ap()
    with cm:
        with pytest.raises(RuntimeError, match='already entered'):
            cm.__enter__()
    with pytest.raises(TypeError):
        ap(1)


def test_entry_outliving_with_keeps_checks(mk, root, outside):
    import contextvars
    ap = mk([root])
    with ap():
        ctx = contextvars.copy_context()
    gc.collect()
    with pytest.raises(PermissionError):
        ctx.run(open, outside / 'f', 'w')
    del ctx
    gc.collect()
    open(outside / 'g', 'w').close()


def test_bad_root_fails_closed():
    with pytest.raises(ValueError, match='root'):
        mk_audit(['/tmp', 'x' * 5000], monitor_calls=False)


def test_hook_appears_once():
    mk_audit(['/tmp'], monitor_calls=False)
    mk_audit(['/tmp'], monitor_calls=False)
    assert sys.modules['fastaudit._fastaudit'].mk_audit is mk_audit


def _fresh(code, tmp_path):
    import subprocess
    import textwrap
    p = subprocess.run([sys.executable, '-c', textwrap.dedent(code), str(tmp_path)],
                       capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_host_pins_entry_points_by_replacing_core_entry_points(tmp_path):
    (tmp_path / 'pinhost.py').write_text(
        'def allow(event, args, frame, msg, data, calls):\n'
        '    return event == "pin.test" and args == ("ok",)\n')
    (tmp_path / 'pin_importer.py').write_text('def f(): pass\nf.__code__ = f.__code__\n')
    out = _fresh('''
        import sys
        sys.path.insert(0, sys.argv[1])
        from importlib.metadata import EntryPoint
        import fastaudit.core as core
        groups = dict(fastaudit_safe_native=('pinned_native',),
                      fastaudit_import_allow=('pin_importer',),
                      fastaudit_audit_hook=('pinhost:allow',))
        core.entry_points = lambda group: tuple(EntryPoint(v, v, group) for v in groups.get(group, ()))
        st = core.audit_state()
        print(st['safe_native'] == ('pinned_native',), st['import_allow'] == ('pin_importer',))
        with core.mk_audit([sys.argv[1]], monitor_calls=False)():
            sys.audit('pin.test', 'ok')          # the pinned audit hook allows it
            import pin_importer                  # the pinned import allowance
            try:
                sys.audit('pin.test', 'no')
                print('not-denied')
            except PermissionError:
                print('denied')
    ''', tmp_path)
    assert out == ['True', 'True', 'denied']


def test_host_narrows_bundled_safe_native(tmp_path):
    out = _fresh('''
        import fastaudit.core as core
        core.bundled_safe_native = ('numpy',)
        st = core.audit_state()['safe_native']
        print('numpy' in st, 'pandas' in st)
    ''', tmp_path)
    assert out == ['True', 'False']
