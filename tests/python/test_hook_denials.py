# SPDX-License-Identifier: Apache-2.0
"""The audit hook's record of a denial names the thread that was refused,
by its kernel id, in a forked child and in other threads as well (the id
is looked up once per thread, not once per denial)."""
import json
import os
import subprocess
import sys
import textwrap

CODE = textwrap.dedent('''
    import json, os, sys, threading
    from fastaudit import mk_audit, recent_denials

    def refuse():
        try:
            sys.audit('fa_test.refused', 1)
        except PermissionError:
            pass
        return recent_denials()[-1]['tid']

    res = {}
    with mk_audit([sys.argv[1]], monitor_calls=False)():
        res['main'] = [refuse(), threading.get_native_id()]
        pid = os.fork()
        if pid == 0:
            got = refuse()
            os.write(1, json.dumps({'child': [got, os.getpid()]}).encode() + b'\\n')
            os._exit(0)
        os.waitpid(pid, 0)
        res['again'] = [refuse(), threading.get_native_id()]
    print(json.dumps(res))
''')


def test_denial_records_the_refused_threads_id(tmp_path):
    out = subprocess.run([sys.executable, '-c', CODE, str(tmp_path)], capture_output=True,
                         text=True, env=dict(os.environ, LD_PRELOAD=''))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    got = {k: v for d in lines for k, v in d.items()}
    assert got['main'][0] == got['main'][1]
    assert got['again'][0] == got['again'][1]
    # the child's only thread has an id of its own: the parent's is not reused
    assert got['child'][0] == got['child'][1]
    assert got['child'][0] != got['main'][0]


def test_each_refused_event_names_itself_in_message_and_fix(tmp_path):
    from fastaudit import mk_audit
    got = []
    with mk_audit([str(tmp_path)], monitor_calls=False)():
        for name in ('fa_test.one', 'fa_test.one', 'fa_test.two', 'fa_test.one'):
            try:
                sys.audit(name, 1)
            except PermissionError as e:
                got.append((name, str(e), e.event, e.fix, e.fastaudit['fix']))
    assert [g[0] for g in got] == ['fa_test.one', 'fa_test.one', 'fa_test.two', 'fa_test.one']
    for name, msg, event, fix, guard_fix in got:
        assert msg.startswith(f'Audit: {name} blocked in sandbox with args: (1,)')
        assert event == name
        assert fix == guard_fix
        assert fix.startswith(f'the audit context blocks {name}: ')
