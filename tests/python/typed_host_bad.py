# SPDX-License-Identifier: Apache-2.0
"""Misuses of the fastaudit API that mypy --strict must reject.

test_typing.py checks this file with mypy and expects exactly the errors
marked ``# expect: CODE`` on their lines: a stub that lets one through (or
reports another) fails the test. It is never run.
"""
from __future__ import annotations

from fastaudit import AuditDenied, Workspace, audit_state, mk_audit, recent_denials, safe_open



def deny_all(event: str) -> bool:
    return False


mk_audit(['/srv/work'], native_calls='ctypes')  # expect: call-overload
mk_audit(['/srv/work'], symlinks='follow')  # expect: call-overload
mk_audit(['/srv/work'], before_deny=deny_all)  # expect: arg-type
mk_audit(['/srv/work'], preset='notebook')  # expect: call-overload
mk_audit(['/srv/work'], preset='data', threads='spawn')  # expect: call-overload
perms = mk_audit(['/srv/work'], preset='data')
perms.add_imports(['pyparsing'])  # expect: arg-type
perms().__enter__(1)  # expect: call-arg
perms.learned().suggested_roots()[0][1].upper()  # expect: union-attr

count: str = audit_state()['native_denial_count']  # expect: assignment
audit_state()['live_entrys']  # expect: typeddict-item

for d in recent_denials():
    print(d['call'])  # expect: typeddict-item
    if d['layer'] == 'libc':
        print(d['call'].upper())

with Workspace('/srv/work') as ws:
    text: bytes = ws.read_text('notes.txt')  # expect: assignment
    ws.rename('a', 'b', False)  # expect: call-arg
    ws.atomic_write('out.json', '{}')  # expect: arg-type
    ws.unlink(path='x')  # expect: call-arg

with safe_open('/srv/work', 'data.bin', 'rb') as f:
    line: str = f.read()  # expect: assignment

try:
    pass
except AuditDenied as e:
    fix: str = e.fix  # expect: assignment
