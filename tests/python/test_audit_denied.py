# SPDX-License-Identifier: Apache-2.0
"""Every refusal explains itself the same way.

Each layer of the audit hook and the call monitor raises
fastaudit.AuditDenied, a PermissionError whose str() is the seed's message,
with the same documented fields and one note that ends with the fix: a
write outside the roots, a process start, a thread, a sensitive
environment variable, a sensitive attribute assignment, ctypes, a policy
change from inside, an undeclared native call. A refusal raised while a
module initialises names the import to trust; a place such as /tmp names
itself as the root to add.
"""
import importlib
import ctypes
import os
import pickle
import subprocess
import sys
import tempfile
import threading

import pytest

import fastaudit
from conftest import MON

PATH_FIELDS = ['event', 'fix', 'fastaudit', 'path', 'resolved', 'rule', 'op', 'roots',
               '__notes__']
EVENT_FIELDS = ['event', 'fix', 'fastaudit', 'rule', '__notes__']
FIELDS = ('event', 'fix', 'fastaudit', 'path', 'resolved', 'rule', 'op', 'roots')
HOST_FIX = ('the audit context blocks %s: approve it from the host '
            '(before_deny returning True, or a tool started through track_call)')
THREAD_FIX = ("the audit context blocks %s: pass threads='context' to mk_audit() to run the "
              "thread in a copy of the context, or approve it from the host (before_deny "
              "returning True, or a tool started through track_call)")
CALL_FIX = ("the audit context blocks fastaudit.call: declare the module safe (a "
            "fastaudit_safe_native entry point), return False from on_call for it, pass "
            "native_calls='libc' to mk_audit() with libfashim.so loaded, or approve it from "
            "the host (before_deny returning True, or a tool started through track_call)")


def refusal(fn, *a):
    """The exception fn(*a) raises, caught as hosts have always caught it."""
    with pytest.raises(PermissionError) as ei:
        fn(*a)
    return ei.value


def explains_itself(e):
    """What every refusal of the hook carries, whatever its layer."""
    assert type(e) is fastaudit.AuditDenied
    assert isinstance(e, PermissionError) and e.errno is None
    assert e.args == (str(e),)
    assert e.fastaudit == {'layer': 'hook', 'rule': e.rule, 'fix': e.fix}
    assert len(e.__notes__) == 1 and e.__notes__[0].startswith('fastaudit: ')
    assert e.fix and e.__notes__[0].endswith('; to allow: ' + e.fix)
    assert '(%s); to allow: ' % e.rule in e.__notes__[0]


def seed_message(e, event, args=None):
    """str(e) is the seed's: the event, its arguments, the call chain."""
    head, sep, chain = str(e).partition('\nCall chain: ')
    assert sep and chain, str(e)
    if args is None:
        assert head.startswith('Audit: %s blocked in sandbox with args: (' % event), head
    else:
        assert head == 'Audit: %s blocked in sandbox with args: %r' % (event, args)


def test_the_class_is_exported_and_documented():
    from fastaudit import AuditDenied
    from fastaudit._fastaudit import AuditDenied as made_in_c
    assert AuditDenied is made_in_c and 'AuditDenied' in fastaudit.__all__
    assert issubclass(AuditDenied, PermissionError)
    assert (AuditDenied.__module__, AuditDenied.__qualname__) == ('fastaudit', 'AuditDenied')
    for field in FIELDS:
        assert getattr(AuditDenied, field) is None
        assert '\n%s ' % field in AuditDenied.__doc__, field
    # a host may raise one itself: every field is there, and add_note works
    e = AuditDenied('m')
    assert str(e) == 'm' and all(getattr(e, f) is None for f in FIELDS)
    assert not hasattr(e, '__notes__')


def test_write_outside_the_roots(mk, root, outside):
    target = outside / 'f'
    with mk([str(root)])():
        e = refusal(open, str(target), 'w')
    explains_itself(e)
    assert str(e) == 'open %r not in %r' % (str(target), (str(root),))
    assert list(vars(e)) == PATH_FIELDS
    fix = "add %s to mk_audit([...])'s roots" % os.path.realpath(outside)
    assert (e.event, e.fix, e.rule, e.op, e.roots) == ('open', fix, 'outside-roots', 'write',
                                                       (str(root),))
    assert e.path == str(target) and e.resolved == os.path.realpath(target)
    assert os.listdir(outside) == []


def _thread():
    threading.Thread(target=len, args=((),)).start()


def _env():
    os.environ['PATH'] = '/fa-nowhere'


def _setattr():
    def f():
        return 1
    f.__code__ = (lambda: 2).__code__


def _ctypes():
    ctypes.CDLL(None)


def _policy(root):
    fastaudit.mk_audit([str(root)])


@pytest.mark.parametrize('what, fn, event, args, why', [
    ('subprocess', lambda r: subprocess.run(['true']), 'subprocess.Popen',
     ('true', ['true'], None, None), 'an audit context starts no process'),
    ('system', lambda r: os.system('true'), 'os.system', (b'true',),
     'an audit context starts no process'),
    pytest.param('thread', lambda r: _thread(), None, None, 'an audit context starts no thread',
                 marks=pytest.mark.skipif(sys.version_info < (3, 12),
                                          reason='thread starts raise an event from 3.12')),
    ('env', lambda r: _env(), 'os.putenv', (b'PATH', b'/fa-nowhere'),
     'a sensitive environment variable'),
    ('setattr', lambda r: _setattr(), 'object.__setattr__', None,
     'a sensitive attribute assignment'),
    ('ctypes', lambda r: _ctypes(), 'ctypes.dlopen', None, 'native code through ctypes'),
    ('policy', _policy, 'audit_perms.set_config', None,
     "a context's policy is not changed from inside it"),
])
def test_each_layer_explains_itself(mk, root, what, fn, event, args, why):
    path = os.environ['PATH']
    try:
        with mk([str(root)])():
            e = refusal(fn, root)
    finally:
        os.environ['PATH'] = path
    if event is None:       # 3.13 starts threads through another call
        assert e.event in ('_thread.start_new_thread', '_thread.start_joinable_thread')
        event = e.event
    explains_itself(e)
    seed_message(e, event, args)
    assert list(vars(e)) == EVENT_FIELDS
    fix = (THREAD_FIX if what == 'thread' else HOST_FIX) % event
    assert (e.event, e.rule, e.fix) == (event, 'blocked-event', fix)
    assert e.__notes__[0].startswith('fastaudit: %s refused: %s' % (event, why))
    assert (e.path, e.resolved, e.op, e.roots) == (None, None, None, None)
    last = fastaudit.recent_denials()[-1]
    assert (last['event'], last['rule'], last['fix']) == (e.event, e.rule, e.fix)
    assert os.environ['PATH'] == path
    if what == 'thread':    # the mode the fix names, passed, allows the start
        done = []
        with mk([str(root)], threads='context')():
            t = threading.Thread(target=done.append, args=(1,))
            t.start()
            t.join()
        assert done == [1]


@pytest.mark.skipif(not MON, reason='the call monitor is 3.12+')
def test_call_monitor_explains_itself(mk, root, native_mods, outside):
    fa_probe = native_mods[0]
    with mk([str(root)])():
        e = refusal(fa_probe.write_file, str(outside / 'native'), 'x')
    explains_itself(e)
    seed_message(e, 'fastaudit.call')
    assert list(vars(e)) == EVENT_FIELDS
    assert (e.event, e.rule, e.fix) == ('fastaudit.call', 'blocked-event', CALL_FIX)
    assert e.__notes__[0].startswith(
        'fastaudit: fastaudit.call refused: a call into native code that is not declared safe')
    assert os.listdir(outside) == []


def test_a_refusal_survives_pickling(mk, root, outside):
    """A refusal sent to another process (a pool's result) stays what it was."""
    with mk([str(root)])():
        e = refusal(open, str(outside / 'p'), 'w')
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is fastaudit.AuditDenied and str(back) == str(e)
    assert vars(back) == vars(e)


@pytest.fixture
def packages(tmp_path, monkeypatch):
    """fa_ad_outer imports fa_ad_dep, whose submodule assigns __kwdefaults__
    at import time through a helper of a module imported long before (the
    shape of matplotlib.pyplot importing pyparsing)."""
    site = tmp_path / 'site'
    for rel, text in {
        'fa_ad_helper.py': 'def retune(f):\n    f.__kwdefaults__ = {"k": 2}\n    return f\n',
        'fa_ad_outer/__init__.py': 'from . import plot\n',
        'fa_ad_outer/plot.py': 'import fa_ad_dep.core\n',
        'fa_ad_dep/__init__.py': '',
        'fa_ad_dep/core.py': ('import fa_ad_helper\n\n@fa_ad_helper.retune\n'
                              'def f(*, k=1):\n    return k\n'),
    }.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    monkeypatch.syspath_prepend(str(site))
    importlib.import_module('fa_ad_helper')
    yield
    for name in list(sys.modules):
        if name.startswith(('fa_ad_outer', 'fa_ad_dep', 'fa_ad_helper')):
            del sys.modules[name]


def test_import_time_refusal_names_the_import_to_trust(mk, root, packages):
    with mk([str(root)])():
        e = refusal(importlib.import_module, 'fa_ad_outer')
    explains_itself(e)
    seed_message(e, 'object.__setattr__')
    fix = ("pass allow_imports=('fa_ad_dep',) to mk_audit(), "
           "or call audit_perms.add_imports('fa_ad_dep') outside the context")
    assert (e.event, e.rule, e.fix) == ('object.__setattr__', 'blocked-event', fix)
    assert e.__notes__ == [
        "fastaudit: object.__setattr__ refused while fa_ad_dep.core initialises: a sensitive "
        "attribute assignment (a function's code or defaults, a class's identity) "
        "(blocked-event); to allow: " + fix]
    assert 'before_deny' not in e.fix
    # the fix, followed, allows it
    with mk([str(root)], allow_imports=('fa_ad_dep',))():
        importlib.import_module('fa_ad_outer')
    assert sys.modules['fa_ad_dep.core'].f() == 2


def test_after_the_import_the_host_fix_again(mk, root, packages):
    """Once the module has initialised, the same assignment made by a call
    is no import's: the host approves it."""
    helper = sys.modules['fa_ad_helper']
    with mk([str(root)])():
        e = refusal(helper.retune, lambda *, k=1: k)
    assert e.fix == HOST_FIX % 'object.__setattr__'
    assert e.__notes__[0].startswith('fastaudit: object.__setattr__ refused: ')


def test_a_temporary_file_in_tmp_names_tmp(mk, root):
    """TemporaryFile() in /tmp is judged at /tmp itself (O_TMPFILE): the root
    to add is /tmp, not "nothing short of /"; added, it allows the file."""
    tmp = os.path.realpath('/tmp')
    if os.path.dirname(tmp) != '/' or not hasattr(os, 'O_TMPFILE'):
        pytest.skip('/tmp is not a top-level directory with O_TMPFILE here')
    with mk([str(root)])():
        e = refusal(lambda: tempfile.TemporaryFile('w', dir=tmp))
    explains_itself(e)
    assert (e.op, e.resolved, e.rule) == ('dir', tmp, 'outside-roots')
    assert e.fix == "add %s to mk_audit([...])'s roots" % tmp
    assert e.__notes__ == ['fastaudit: dir judged at %s: not under any allowed root '
                           '(outside-roots); to allow: %s' % (tmp, e.fix)]
    with mk([str(root), tmp])():
        with tempfile.TemporaryFile('w', dir=tmp) as f:
            f.write('x')
    # only a directory judged as itself names itself: a file directly
    # under / still has no root short of / to suggest
    stray = '/fa-audit-denied-%d' % os.getpid()
    with mk([str(root)])():
        e = refusal(open, stray, 'w')
    assert e.fix == 'nothing short of / holds it: allow no such write'
    assert not os.path.exists(stray)

