# SPDX-License-Identifier: Apache-2.0
"""An agent host, as scripts/demo runs it: fa-run -w . -w ../other-project.

The host runs the agent's steps inside an audit context whose only root is
the workspace (the current directory), then does a little work of its own
outside the context. Each step prints whether it went through and, when
it did not, which layer refused it:

  audit hook   the Python-level event was refused (PermissionError, no errno)
  libc shim    libfashim.so refused the libc call itself (EACCES), under the
               audit context's policy or under fa-run's process policy

The host trusts ctypes (its before_deny allows the ctypes.* events), not
what code does with it: a write that ctypes makes through libc is still
judged by the shim.
"""
import ctypes
import os
import sqlite3
import subprocess
import sys

from fastaudit import audit_state, mk_audit

WORK = os.getcwd()
OTHER = os.path.join(os.path.dirname(WORK), 'other-project')
HOME = os.path.join(os.path.dirname(WORK), 'home')


def host_policy(event, args, frame, msg, data, calls):
    return event.startswith('ctypes.')


audit_perms = mk_audit([WORK], before_deny=host_policy, native='require',
                       monitor_calls=hasattr(sys, 'monitoring'))
libc = ctypes.CDLL(None, use_errno=True)
libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]


def layer(exc, seen):
    """Which layer refused, from the exception and the shim's denial log."""
    if audit_state()['native_denial_count'] > seen:
        d = audit_state()['native_denials'][-1]
        who = 'audit context' if d['policy'] == 'context' else "fa-run's process policy"
        return 'libc shim (%s): %s(%s) from %s: %s' % (
            who, d['call'], d['path'], os.path.basename(d['caller']), d['reason'])
    if isinstance(exc, PermissionError) and exc.errno is None:
        return 'audit hook: ' + str(exc).splitlines()[0][:110]
    return 'not the guard: %s: %s' % (type(exc).__name__, exc)


def step(what, fn):
    seen = audit_state()['native_denial_count']
    try:
        fn()
    except Exception as exc:
        print('  [blocked] %s\n            by %s' % (what, layer(exc, seen)))
        if audit_state()['native_denial_count'] > seen:
            # what the library itself said, and the note the bridge adds (3.12+)
            print('            the library raised %s: %s' % (type(exc).__name__, exc))
            for note in getattr(exc, '__notes__', ()):
                print('            note: %s' % note)
        return
    print('  [allowed] %s' % what)


def write(path):
    with open(path, 'w') as f:
        f.write('written by the agent\n')


def sqlite_attach(db, other):
    con = sqlite3.connect(db)
    try:
        con.execute('ATTACH DATABASE ? AS o', (other,))
        con.execute('CREATE TABLE IF NOT EXISTS o.stolen(x)')
        con.commit()
    finally:
        con.close()


def sqlite_work(db):
    con = sqlite3.connect(db)
    try:
        con.execute('CREATE TABLE IF NOT EXISTS results(step, value)')
        con.execute("INSERT INTO results VALUES ('demo', 1)")
        con.commit()
    finally:
        con.close()


def sqlite_vacuum_into(db, dest):
    con = sqlite3.connect(db)
    try:
        con.execute('VACUUM INTO ?', (dest,))
    finally:
        con.close()


def ctypes_write(path):
    fd = libc.open(path.encode(), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), path)
    os.close(fd)


def agent():
    """The generated code: some steps stay in the workspace, some stray."""
    step('python: write notes.txt in the workspace', lambda: write('notes.txt'))
    step('python: write ../other-project/notes.txt',
         lambda: write('../other-project/notes.txt'))
    step('python: os.remove(../other-project/README)',
         lambda: os.remove('../other-project/README'))
    step("python: subprocess.run(['ls'])",
         lambda: subprocess.run(['ls'], check=True, capture_output=True))
    step('sqlite3 (native): results.db in the workspace, journal and all',
         lambda: sqlite_work('results.db'))
    step("sqlite3 (native): ATTACH '../other-project/x.db' (no audit event)",
         lambda: sqlite_attach('results.db', '../other-project/x.db'))
    step("sqlite3 (native): VACUUM INTO '../other-project/copy.db' (no audit event)",
         lambda: sqlite_vacuum_into('results.db', '../other-project/copy.db'))
    step('ctypes -> libc open(): out.bin in the workspace',
         lambda: ctypes_write('out.bin'))
    step('ctypes -> libc open(): ../other-project/from-ctypes.bin',
         lambda: ctypes_write('../other-project/from-ctypes.bin'))


def main():
    st = audit_state()
    print('python %d.%d, native checks: %s' % (sys.version_info[:2] + (st['native'],)))
    print('inside the audit context (root: the workspace):')
    with audit_perms():
        agent()
    print("outside the context (the host itself; fa-run's roots still apply):")
    step("sqlite3 (native): ATTACH '../other-project/x.db'",
         lambda: sqlite_attach('results.db', '../other-project/x.db'))
    step('python: append to ../home/.profile',
         lambda: write_append(os.path.join(HOME, '.profile')))
    print('native denials recorded: %d' % audit_state()['native_denial_count'])


def write_append(path):
    with open(path, 'a') as f:
        f.write('export PATH=/tmp/evil:$PATH\n')


if __name__ == '__main__':
    main()
