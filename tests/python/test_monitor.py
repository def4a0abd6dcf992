# SPDX-License-Identifier: Apache-2.0
"""The sys.monitoring call monitor (3.12+): what is audited, what is ignored."""
import functools
import io
import sys

import pytest

from conftest import MON
from fastaudit import audit_state

pytestmark = pytest.mark.skipif(not MON, reason='sys.monitoring is 3.12+')


def test_undeclared_native_call_denied(mk, root, native_mods, outside):
    fa_probe, fa_safe_probe, _ = native_mods
    ap = mk([root])
    fa_probe.noop()           # outside a context: nothing to see

    def caller():
        fa_probe.write_file(str(outside / 'native'), 'x')
    with ap():
        with pytest.raises(PermissionError) as ei:
            caller()
        fa_safe_probe.noop()  # declared through fastaudit_safe_native
        len([1])              # stdlib
    msg = str(ei.value)
    assert msg.startswith("Audit: fastaudit.call blocked in sandbox with args: "
                          "('test_monitor.test_undeclared_native_call_denied.<locals>.caller', "
                          "'fa_probe.write_file')\nCall chain: ")
    assert msg.splitlines()[1].endswith('<locals>.caller -> fa_probe.write_file')
    assert not (outside / 'native').exists()
    fa_probe.noop()           # after the context: free again


def test_call_site_rearmed_on_each_entry(mk, root, native_mods):
    fa_probe = native_mods[0]
    ap = mk([root], on_call=lambda *a: False)
    deny = mk([root])

    def site():
        fa_probe.noop()
    for _ in range(2):
        with ap():
            site()
        with deny():
            with pytest.raises(PermissionError):
                site()


def test_python_callables_are_not_audited(mk, root):
    class Getattr:
        touched = 0

        def __getattr__(self, name):
            Getattr.touched += 1
            raise AttributeError(name)

        def __call__(self):
            return 1

    def f():
        return 2

    @functools.wraps(f)
    def wrapper():
        return f()

    class K:
        def m(self):
            return 3
    ap = mk([root])
    g = Getattr()
    with ap():
        assert g() == 1 and f() == 2 and wrapper() == 2 and K().m() == 3
        assert functools.partial(f)() == 2 and K() is not None
    assert Getattr.touched == 0


def test_inherited_c_methods_resolve_to_owner(mk, root):
    class MyList(list):
        def append(self, x):
            super().append(x)

    class MyDict(dict):
        pass
    ap = mk([root])
    with ap():
        m = MyList()
        m.append(1)
        d = MyDict()
        d.setdefault('a', 1)
        io.StringIO().write('x')
    assert m == [1]


def test_cython_function_is_native(mk, root, native_mods):
    fa_cy = native_mods[2]
    if fa_cy is None:
        pytest.skip('Cython not available')
    ap = mk([root])
    assert fa_cy.cy_add(1, 2) == 3
    with ap():
        with pytest.raises(PermissionError, match=r"'fa_cy\.cy_add'"):
            fa_cy.cy_add(1, 2)


def test_on_call_results(mk, root, native_mods):
    fa_probe = native_mods[0]
    seen = []

    def on_call(caller, callee, fn, code, off, data, calls):
        seen.append((caller, callee, fn, type(code).__name__, type(off), data, calls))
        if data == 'raise':
            raise LookupError('host says no')
        if data == 'disable':
            return sys.monitoring.DISABLE
        return False
    ap = mk([root], on_call=on_call, data='suppress')
    with ap():
        fa_probe.noop()
    caller, callee, fn, code, off, data, calls = seen[0]
    assert callee == 'fa_probe.noop' and fn is fa_probe.noop and code == 'code' and off is int
    assert caller.endswith('test_on_call_results') and data == 'suppress' and calls == ()
    ap.set_data('raise')
    with ap():
        with pytest.raises(LookupError):
            fa_probe.noop()
    ap.set_data('disable')
    n = len(seen)

    def site():
        fa_probe.noop()
    with ap():
        site()
        site()        # DISABLEd: the callback is not called again
    assert len(seen) == n + 1


def test_packaged_monitor_hook(mk, root, native_mods):
    fa_probe = native_mods[0]
    import fa_testhooks
    ap = mk([root])
    with ap():
        fa_probe.hook_suppressed()
        fa_probe.hook_disabled()
        with pytest.raises(PermissionError):
            fa_probe.noop()
    assert 'fa_probe.hook_suppressed' in fa_testhooks.seen


def test_lxml_hook(mk, root, outside):
    etree = pytest.importorskip('lxml.etree')
    from fastaudit.hooks import lxml_monitor
    assert lxml_monitor('c', 'lxml.etree.fromstring', None, None, 0, None, ()) is sys.monitoring.DISABLE
    assert lxml_monitor('c', 'lxml.etree._ElementTree.write', None, None, 0, None, ()) is None
    assert lxml_monitor('c', 'other.mod', None, None, 0, None, ()) is None
    ap = mk([root])
    with ap():
        doc = etree.fromstring('<a><b/></a>')
        assert etree.tostring(doc) == b'<a><b/></a>'
        tree = etree.ElementTree(doc)
        with pytest.raises(PermissionError, match=r"lxml\.etree\._ElementTree\.write'"):
            tree.write(str(outside / 'out.xml'))
        with pytest.raises(PermissionError, match=r"lxml\.etree\.xmlfile"):
            etree.xmlfile(str(outside / 'x.xml'))
    assert not (outside / 'out.xml').exists()


def test_bound_native_method_called_through_a_name(mk, root, outside):
    etree = pytest.importorskip('lxml.etree')
    tree = etree.ElementTree(etree.fromstring('<a/>'))
    with mk([root])():
        write = tree.write        # a bound method object, not a method call
        with pytest.raises(PermissionError, match=r"lxml\.etree\._ElementTree\.write'"):
            write(str(outside / 'm.xml'))
    assert not (outside / 'm.xml').exists()


def test_lxml_hook_called_before_any_mk_audit():
    import subprocess
    code = ('import sys\n'
            'from fastaudit.hooks import lxml_monitor\n'
            'r = lxml_monitor("c", "lxml.etree.fromstring", None, None, 0, None, ())\n'
            'w = lxml_monitor("c", "lxml.etree._ElementTree.write", None, None, 0, None, ())\n'
            'print(r is sys.monitoring.DISABLE, w is None)\n')
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60)
    assert p.stdout.split() == ['True', 'True'], p.stderr


def test_monitoring_idle_between_contexts(mk, root, native_mods):
    fa_probe = native_mods[0]
    ap = mk([root])
    off = mk([root], monitor_calls=False)
    calls = []
    spy = mk([root], on_call=lambda c, callee, *a: calls.append(callee) or False)
    assert sys.monitoring.get_tool(3) == 'fastaudit'
    CALL = sys.monitoring.events.CALL

    def site():
        fa_probe.noop()
    assert sys.monitoring.get_events(3) == 0
    with ap():
        # RAISE joins CALL when libfashim.so is loaded (native denial notes)
        assert sys.monitoring.get_events(3) & CALL
        with ap():
            assert audit_state()['monitor_on'] == 2
        assert sys.monitoring.get_events(3) & CALL
        assert audit_state()['monitor_on'] == 1
        with pytest.raises(PermissionError):
            site()
    # the last exit clears the events: nothing is instrumented between contexts
    assert sys.monitoring.get_events(3) == 0
    assert audit_state()['monitor_on'] == 0
    site()            # between contexts: not audited
    with off():
        assert sys.monitoring.get_events(3) == 0
        site()        # a context without monitoring audits no native call
    with spy():
        site()        # the next monitoring entry audits it again
    assert calls == ['fa_probe.noop']
    assert sys.monitoring.get_events(3) == 0


def test_site_disabled_in_one_context_rearmed_in_the_next(mk, root, native_mods):
    """A site DISABLEd in a context and not run since is re-armed on entry."""
    fa_probe = native_mods[0]
    quiet = mk([root], on_call=lambda *a: sys.monitoring.DISABLE)
    deny = mk([root])

    def site():
        fa_probe.noop()
    for _ in range(3):
        with quiet():
            site()
            site()    # DISABLEd: runs unaudited
        with deny():
            with pytest.raises(PermissionError):
                site()


def test_entries_without_disable_keep_auditing(mk, root, native_mods):
    """Entries that DISABLE nothing skip restart_events(); sites stay armed."""
    fa_probe = native_mods[0]
    ap = mk([root])

    def site():
        fa_probe.noop()
    for _ in range(3):
        with ap():
            with pytest.raises(PermissionError):
                site()
        with ap():
            pass


def test_monitor_calls_false_context_ignores_native(mk, root, native_mods):
    fa_probe = native_mods[0]
    ap = mk([root])
    off = mk([root], monitor_calls=False)
    with ap():
        pass
    with off():
        fa_probe.noop()


def test_tool_id_taken_by_other_tool():
    import subprocess
    code = ("import sys; sys.monitoring.use_tool_id(3, 'profiler')\n"
            "from fastaudit import mk_audit\n"
            "try:\n    mk_audit(['/tmp'])\nexcept RuntimeError as e:\n    print(e)\n"
            "mk_audit(['/tmp'], tool_id=4); print(sys.monitoring.get_tool(4))\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert out.stdout.splitlines() == ["sys.monitoring tool id 3 is already used by 'profiler'",
                                       'fastaudit'], out.stderr
