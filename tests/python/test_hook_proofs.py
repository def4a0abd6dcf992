# SPDX-License-Identifier: Apache-2.0
"""The hook alone keeps the paths it proved free of links (pyhook's moves.c).

No libfashim.so here: each case runs in a Python of its own, without
LD_PRELOAD. A write-open in a context is proved free of links beneath its
root once, and the proof is kept while nothing the hook can see may have
put a link on a path: a rename, symlink or link event from any thread, a
process start (until the process has no children left), events that went
unwatched while no context was live. Each case swaps a directory on the
way for a symlink leading out of the root between two writes of one path,
in one of those ways, and the second write must be refused by the hook
itself: the hook's message, nothing written outside.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

PRELUDE = '''
import json, os, queue, subprocess, sys, threading
from fastaudit import mk_audit, audit_state
root, out = sys.argv[1], sys.argv[2]
res = {}
def write(key, p):
    try:
        with open(p, 'w') as f:
            f.write('x')
        res[key] = 'ok'
    except PermissionError as e:
        res[key] = 'hook' if str(e).startswith("open '") else str(e)
def swap(d):
    """d, a directory on the way, renamed away; a symlink out put there"""
    os.rename(d, d + '.old')
    os.symlink(out, d)
class Helper:
    """A thread started outside any context (no thread starts inside one),
    running what it is handed, one call at a time."""
    def __init__(self):
        self.q, self.r = queue.Queue(), queue.Queue()
        threading.Thread(target=self.loop, daemon=True).start()
    def loop(self):
        while True:
            fn, a = self.q.get()
            try:
                self.r.put((fn(*a), None))
            except BaseException as e:
                self.r.put((None, e))
    def __call__(self, fn, *a):
        self.q.put((fn, a))
        v, e = self.r.get()
        if e:
            raise e
        # the thread's next event: what it announced is done (moves.c)
        self.q.put((sys.audit, ('fastaudit.test.settled',)))
        self.r.get()
        return v
helper = Helper()
ap = mk_audit([root], monitor_calls=False)
os.makedirs(root + '/a/b', exist_ok=True)
'''

SWAP_SH = 'mv "$1/a/b" "$1/a/b.old" && ln -s "$2" "$1/a/b"'

# Imports no fastaudit: it also runs before the import (a child from before the hook).
SWAPPER = f'''
import subprocess
def swapper(root, out):
    """A child that swaps root/a/b for a link out when told to, says so,
    and waits to be told to end."""
    return subprocess.Popen(
        ['sh', '-c', 'read x && ' + {SWAP_SH!r} + ' && echo swapped && read y',
         'sh', root, out],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def swap_now(p):
    p.stdin.write('go\\n')
    p.stdin.flush()
    assert p.stdout.readline() == 'swapped\\n'
'''


def run(root, outside, body, before='', strace=None):
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    env['PYTHONPATH'] = os.pathsep.join(sys.path)
    code = (SWAPPER + textwrap.dedent(before) + PRELUDE + textwrap.dedent(body)
            + '\nprint(json.dumps(res))\n')
    argv = [sys.executable, '-c', code, str(root), str(outside)]
    if strace:
        argv = ['strace', '-f', '-qq', '-e', 'trace=openat2,readlinkat', '-o', strace] + argv
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def refused_and_nothing_outside(r, outside):
    assert r['first'] == 'ok', r
    assert r['second'] == 'hook', r
    assert os.listdir(outside) == []


def test_a_move_in_a_thread_without_a_context(root, outside):
    # the context stays live in this thread while another one, outside
    # any context, renames and links
    r = run(root, outside, '''
        with ap():
            write('first', root + '/a/b/f')
            helper(swap, root + '/a/b')
            write('second', root + '/a/b/f')
    ''')
    refused_and_nothing_outside(r, outside)


def test_a_move_while_no_context_was_live(root, outside):
    r = run(root, outside, '''
        with ap():
            write('first', root + '/a/b/f')
        res['live'] = audit_state()['live_entries']
        swap(root + '/a/b')
        with ap():
            write('second', root + '/a/b/f')
    ''')
    assert r['live'] == 0
    refused_and_nothing_outside(r, outside)


def test_a_child_that_has_ended(root, outside):
    # started from a thread without a context: the hook allows it, and
    # sees a process start
    r = run(root, outside, f'''
        with ap():
            write('first', root + '/a/b/f')
            helper(subprocess.run, ['sh', '-c', {SWAP_SH!r}, 'sh', root, out])
            write('second', root + '/a/b/f')
    ''')
    refused_and_nothing_outside(r, outside)


def test_a_forked_child(root, outside):
    r = run(root, outside, '''
        def fork_swap():
            pid = os.fork()
            if pid == 0:
                swap(root + '/a/b')
                os._exit(0)
            os.waitpid(pid, 0)
        with ap():
            write('first', root + '/a/b/f')
            helper(fork_swap)
            write('second', root + '/a/b/f')
    ''')
    refused_and_nothing_outside(r, outside)


def test_a_child_still_running(root, outside):
    # the child swaps when told to, says so, and waits to be told to end:
    # while it runs nothing is kept, though its start was settled before
    # the write made before the swap
    r = run(root, outside, '''
        with ap():
            write('first', root + '/a/b/f')
            p = helper(swapper, root, out)
            write('during', root + '/a/b/f')
            swap_now(p)
            write('second', root + '/a/b/f')
        p.communicate('')
    ''')
    assert r['during'] == 'ok', r
    refused_and_nothing_outside(r, outside)


def test_a_child_started_while_no_context_was_live(root, outside):
    # no event is looked at then: the next context looks for children
    r = run(root, outside, '''
        with ap():
            write('first', root + '/a/b/f')
        p = swapper(root, out)
        with ap():
            write('during', root + '/a/b/f')
            swap_now(p)
            write('second', root + '/a/b/f')
        p.communicate('')
    ''')
    assert r['during'] == 'ok', r
    refused_and_nothing_outside(r, outside)


def test_a_child_from_before_the_hook(root, outside):
    # started before fastaudit was imported: no event was seen for it
    r = run(root, outside, '''
        with ap():
            write('first', root + '/a/b/f')
            swap_now(early)
            write('second', root + '/a/b/f')
        early.communicate('')
    ''', before='''
        import os, sys
        os.makedirs(sys.argv[1] + '/a/b')
        early = swapper(sys.argv[1], sys.argv[2])
    ''')
    refused_and_nothing_outside(r, outside)


@pytest.mark.skipif(sys.version_info < (3, 14), reason='ctypes calls are audited from 3.14')
def test_a_ctypes_call(root, outside):
    r = run(root, outside, '''
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        def native_swap(d):
            assert libc.rename((d).encode(), (d + '.old').encode()) == 0
            assert libc.symlink(out.encode(), d.encode()) == 0
        with ap():
            write('first', root + '/a/b/f')
            helper(native_swap, root + '/a/b')
            write('second', root + '/a/b/f')
    ''')
    refused_and_nothing_outside(r, outside)


@pytest.mark.skipif(not shutil.which('strace'), reason='strace not installed')
def test_the_proof_is_kept(root, outside, tmp_path):
    # a hundred writes of one path ask the kernel once; once more after a
    # move made elsewhere; new names in that directory ask after their
    # final component only, and removes nothing
    log = tmp_path / 'strace.log'
    probe = subprocess.run(['strace', '-qq', '-o', os.devnull, 'true'], capture_output=True)
    if probe.returncode:
        pytest.skip('strace cannot trace here: ' + probe.stderr.decode(errors='replace'))
    r = run(root, outside, '''
        os.makedirs(root + '/c/d/e')
        p = root + '/c/d/e/f'
        with ap():
            for i in range(100):
                write('w%d' % i, p)
            helper(os.rename, root + '/a', root + '/a2')
            for i in range(100, 200):
                write('w%d' % i, p)
            # new names in the directory proved: their final component alone
            for i in range(50):
                os.close(os.open(root + '/c/d/e/n%d' % i, os.O_CREAT | os.O_WRONLY))
            for i in range(50):
                os.remove(root + '/c/d/e/n%d' % i)
    ''', strace=str(log))
    assert set(r.values()) == {'ok'} and len(r) == 200
    lines = log.read_text().splitlines()
    # the hook's proofs are openat2 calls on the path below the root
    proofs = [line for line in lines if 'openat2(' in line and '"c/d/e/' in line]
    # once, and once more after the move (the import's own lookups aside)
    assert 1 <= len(proofs) <= 3, proofs
    # a readlinkat for each new name opened, none for a remove (it follows no link)
    finals = [line for line in lines if 'readlinkat(' in line and '"c/d/e/n' in line]
    assert len(finals) == 50, finals[:5]
