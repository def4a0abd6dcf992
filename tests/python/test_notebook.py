# SPDX-License-Identifier: Apache-2.0
"""%load_ext fastaudit in a real Jupyter kernel, started from the kernelspec
``python -m fastaudit kernel install`` writes, driven by jupyter_client.

Every reply is awaited with a timeout, so a hung kernel fails the test; the
assertions are on outcomes (replies, outputs, files), never on durations.
"""
import json
import os
import queue
import subprocess
import sys

import pytest

pytest.importorskip('ipykernel')
pytest.importorskip('IPython')
jc_manager = pytest.importorskip('jupyter_client.manager')
jc_kernelspec = pytest.importorskip('jupyter_client.kernelspec')

REPLY_TIMEOUT = 120  # seconds a reply may take before the test fails
NAME = 'fastaudit-test'


def fastaudit_cmd(*args):
    return subprocess.run([sys.executable, '-m', 'fastaudit', *args], capture_output=True,
                          text=True, timeout=REPLY_TIMEOUT)


class Kernel:
    def __init__(self, kernels_dir, home):
        env = dict(os.environ, IPYTHONDIR=os.path.join(home, 'ipython'),
                   JUPYTER_RUNTIME_DIR=os.path.join(home, 'runtime'))
        env.pop('LD_PRELOAD', None)   # the kernelspec's env is what preloads the shim
        ksm = jc_kernelspec.KernelSpecManager(kernel_dirs=[kernels_dir])
        self.km = jc_manager.KernelManager(kernel_name=NAME, kernel_spec_manager=ksm)
        self.km.start_kernel(env=env, cwd=home)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=REPLY_TIMEOUT)

    def run(self, code):
        """(status, ename, text): the reply's status, the error's class name,
        and every output of the cell (streams, results, the error's lines)."""
        out, ename = [], None

        def hook(msg):
            nonlocal ename
            c = msg['content']
            if msg['msg_type'] == 'stream':
                out.append(c['text'])
            elif msg['msg_type'] in ('execute_result', 'display_data'):
                out.append(c['data'].get('text/plain', ''))
            elif msg['msg_type'] == 'error':
                ename = c['ename']
                out.append('\n'.join(c['traceback']))
        try:
            reply = self.kc.execute_interactive(code, timeout=REPLY_TIMEOUT, output_hook=hook,
                                                allow_stdin=False)
        except TimeoutError:
            pytest.fail(f'no reply from the kernel to {code!r}')
        return reply['content']['status'], ename, ''.join(out)

    def ok(self, code):
        status, ename, text = self.run(code)
        assert status == 'ok', (code, ename, text)
        return text

    def value(self, expr):
        return json.loads(self.ok(f'import json as _j; print(_j.dumps({expr}))'))

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture(scope='module')
def prefix(tmp_path_factory):
    p = tmp_path_factory.mktemp('prefix')
    r = fastaudit_cmd('kernel', 'install', '--prefix', str(p), '--name', NAME)
    assert r.returncode == 0, r.stderr
    assert 'Installed kernelspec fastaudit-test' in r.stdout
    return p


@pytest.fixture(scope='module')
def kernel(prefix, tmp_path_factory):
    home = tmp_path_factory.mktemp('home')
    k = Kernel(str(prefix / 'share' / 'jupyter' / 'kernels'), str(home))
    k.home = home
    k.ok('%load_ext fastaudit')
    yield k
    k.close()


@pytest.fixture
def work(kernel, tmp_path):
    """A root W and a place outside it, with the kernel's cells audited in W."""
    w = tmp_path / 'w'
    w.mkdir()
    kernel.ok(f'%fastaudit on {w}')
    yield w, tmp_path
    kernel.ok('%fastaudit off')


def test_kernelspec_names_the_installed_shim(prefix):
    with open(prefix / 'share' / 'jupyter' / 'kernels' / NAME / 'kernel.json') as f:
        spec = json.load(f)
    assert os.path.samefile(spec['env']['LD_PRELOAD'], os.environ['FA_SHIM'])
    assert spec['argv'][:3] == [sys.executable, '-m', 'ipykernel_launcher']


def test_kernel_runs_with_native_checks_on(kernel):
    assert kernel.value('__import__("fastaudit").audit_state()["native"]') is True


def test_outside_write_refused_with_the_fix_disk_unchanged(kernel, work):
    w, outside = work
    kept = outside / 'kept.txt'
    kept.write_text('keep')
    status, ename, text = kernel.run(f'open({str(kept)!r}, "w").write("gone")')
    assert status == 'error' and ename == 'AuditDenied'
    assert f'to allow: add {outside} to' in text
    assert kept.read_text() == 'keep'
    status, ename, text = kernel.run(f'open({str(outside / "new.txt")!r}, "w")')
    assert status == 'error' and 'to allow: add' in text
    assert not (outside / 'new.txt').exists()


def test_inside_writes_work_natively_too(kernel, work):
    w, outside = work
    kernel.ok(f'open({str(w / "a.txt")!r}, "w").write("a")')
    assert (w / 'a.txt').read_text() == 'a'
    # sqlite writes the file itself, from C: only the shim sees it
    kernel.ok('import sqlite3; db = sqlite3.connect(":memory:"); db.execute("create table t(x)")')
    kernel.ok(f'db.execute("vacuum into \'{w / "in.db"}\'")')
    assert (w / 'in.db').stat().st_size > 0
    status, ename, text = kernel.run(f'db.execute("vacuum into \'{outside / "out.db"}\'")')
    assert status == 'error' and ename == 'OperationalError'
    if sys.version_info < (3, 12):
        # Before 3.12 no monitoring event hands the note to the exception
        # in a kernel's cell: the refusal is read from its record.
        text = kernel.ok('import fastaudit; d = fastaudit.recent_denials()[-1]; '
                         'print(d["rule"] + "; to allow: " + d["fix"])')
    assert 'outside-roots' in text and f'to allow: add {outside} to' in text
    assert not (outside / 'out.db').exists()


def test_async_cell_runs_in_the_context(kernel, work):
    w, outside = work
    status, ename, text = kernel.run(
        'import asyncio\n'
        'await asyncio.sleep(0)\n'
        f'open({str(w / "async.txt")!r}, "w").write("in")\n'
        f'open({str(outside / "async.txt")!r}, "w")\n')
    assert status == 'error' and ename == 'AuditDenied', text
    assert (w / 'async.txt').read_text() == 'in'
    assert not (outside / 'async.txt').exists()
    # left where it was entered: the next cell has a context of its own
    assert kernel.value('__import__("fastaudit").audit_state()["active"]') is True
    assert kernel.ok('await asyncio.sleep(0); 6 * 7').strip() == '42'


@pytest.mark.parametrize('loop, ename', [
    ('import time\nwhile True: time.sleep(0.05)', 'KeyboardInterrupt'),
    # ipykernel cancels an async cell's task on SIGINT
    ('import asyncio\nwhile True: await asyncio.sleep(0.05)', 'CancelledError'),
])
def test_interrupted_cell_then_the_next_cells(kernel, work, loop, ename):
    w, outside = work
    kernel.kc.execute('print("started", flush=True)\n' + loop, stop_on_error=False)
    while True:   # the cell is running once it has printed
        try:
            msg = kernel.kc.get_iopub_msg(timeout=REPLY_TIMEOUT)
        except queue.Empty:
            pytest.fail('the looping cell never started')
        if msg['msg_type'] == 'stream' and 'started' in msg['content']['text']:
            break
    kernel.km.interrupt_kernel()
    try:
        reply = kernel.kc.get_shell_msg(timeout=REPLY_TIMEOUT)
    except queue.Empty:
        pytest.fail('no reply after the interrupt')
    assert reply['content']['status'] == 'error'
    assert reply['content']['ename'] == ename
    status, ename, text = kernel.run(f'open({str(outside / "after.txt")!r}, "w")')
    assert status == 'error' and ename == 'AuditDenied'
    kernel.ok(f'open({str(w / "after.txt")!r}, "w")')
    kernel.ok('%fastaudit off')
    assert kernel.value('__import__("fastaudit").audit_state()["active"]') is False
    kernel.ok(f'open({str(outside / "after.txt")!r}, "w")')


def test_bang_and_bash_fail_with_one_line(kernel, work):
    w, outside = work
    for code, prog in (('!ls', 'ls'), (f'!touch {outside / "t"}', 'touch'),
                       ('files = !ls', 'ls'), ('%%bash\nls\n', 'bash')):
        status, ename, text = kernel.run(code)
        assert status == 'error' and ename == 'ExecRefused', (code, text)
        assert len(text.strip().splitlines()) == 1, text
        assert 'refused in the audit context' in text
        assert f'to allow it: %fastaudit on {w} --allow-exec {prog}' in text
    assert not (outside / 't').exists()
    # the same refusal, caught as what it is
    text = kernel.ok('import fastaudit\n'
                     'try:\n'
                     '    get_ipython().system("ls")\n'
                     'except fastaudit.AuditDenied as e:\n'
                     '    print(e.rule, e.event, e.fix)\n')
    assert text.strip() == f'blocked-event ipython.system %fastaudit on {w} --allow-exec ls'


def test_allowed_program_starts_confined_to_the_roots(kernel, work):
    w, outside = work
    kernel.ok(f'%fastaudit on {w} --allow-exec touch')
    kernel.ok(f'!touch {w / "t1"} {outside / "t2"}')
    assert (w / 't1').exists()
    assert not (outside / 't2').exists()
    status, ename, text = kernel.run('!ls')
    assert status == 'error' and ename == 'ExecRefused'
    # %%bash runs on a thread IPython starts in the cell: it carries the context
    kernel.ok(f'%fastaudit on {w} --allow-exec bash')
    text = kernel.ok(f'%%bash\necho hi > {w / "b.txt"}\ntouch {outside / "b2"} || echo refused\n')
    assert 'refused' in text
    assert (w / 'b.txt').read_text() == 'hi\n'
    assert not (outside / 'b2').exists()
    kernel.ok('%fastaudit off')
    kernel.ok(f'%%bash\ntouch {outside / "b3"}\n')
    assert (outside / 'b3').exists()


def test_off_then_the_same_write_works(kernel, work):
    w, outside = work
    target = str(outside / 'later.txt')
    status, ename, text = kernel.run(f'open({target!r}, "w").write("x")')
    assert status == 'error'
    kernel.ok('%fastaudit off')
    assert kernel.value('__import__("fastaudit").audit_state()["active"]') is False
    kernel.ok(f'open({target!r}, "w").write("x")')
    assert (outside / 'later.txt').read_text() == 'x'
    kernel.ok('!true')


def test_strict_mode_keeps_the_kernel_talking(kernel, work):
    """--strict refuses calls into undeclared native code; the kernel's own
    messages (pyzmq) from inside the cell still go out."""
    w, outside = work
    kernel.ok(f'%fastaudit on {w} --strict')
    assert kernel.ok('print("hello")') == 'hello\n'
    assert kernel.ok('6 * 7').strip() == '42'
    assert kernel.ok('import asyncio\nawait asyncio.sleep(0)\nprint("async")') == 'async\n'
    status, ename, text = kernel.run(f'open({str(outside / "s.txt")!r}, "w")')
    assert status == 'error' and ename == 'AuditDenied'
    assert not (outside / 's.txt').exists()
    assert "strict (mk_audit's defaults)" in kernel.ok('%fastaudit')


def test_status(kernel, work):
    w, outside = work
    text = kernel.ok('%fastaudit')
    assert text.startswith('fastaudit: on:')
    assert f'roots: {w}' in text
    assert 'native checks: on' in text
    assert 'denials since on: 0' in text
    kernel.run(f'open({str(outside / "x")!r}, "w")')
    text = kernel.ok('%fastaudit')
    assert 'denials since on: 1' in text
    assert f"open '{outside / 'x'}'" in text
    kernel.ok('%fastaudit off')
    assert kernel.ok('%fastaudit').startswith('fastaudit: off:')


@pytest.mark.parametrize('line, says', [
    ('on', 'needs at least one directory'),
    ('on /nonexistent-fastaudit-dir', 'is not a directory'),
    ('frob', "invalid choice: 'frob'"),
    ('off /tmp', 'takes no directories'),
    ('on /tmp --frob', 'unrecognized arguments: --frob'),
])
def test_bad_magic_arguments(kernel, line, says):
    status, ename, text = kernel.run(f'%fastaudit {line}')
    assert status == 'error'
    assert text.startswith('UsageError: ') and says in text   # IPython's one line
    assert kernel.ok('%fastaudit').startswith('fastaudit: off:')


@pytest.mark.parametrize('args, says', [
    (['kernel'], 'required'),
    (['kernel', 'frob'], "invalid choice: 'frob'"),
    (['kernel', 'install', '--name', 'a b'], 'a kernel name is'),
    (['kernel', 'install', '--user', '--prefix', '/x'], 'not allowed with'),
])
def test_bad_cli_arguments(args, says):
    r = fastaudit_cmd(*args)
    assert r.returncode == 2
    assert says in r.stderr


def test_unload_leaves_cells_unaudited(kernel, tmp_path):
    kernel.ok(f'%fastaudit on {tmp_path}')
    kernel.ok('%unload_ext fastaudit')
    kernel.ok(f'open({str(tmp_path.parent / "unloaded.txt")!r}, "w")')
    assert kernel.value('__import__("fastaudit").audit_state()["active"]') is False
    status, ename, text = kernel.run('%fastaudit')
    assert status == 'error' and '%fastaudit' in text and 'not found' in text
    kernel.ok('%load_ext fastaudit')
    assert kernel.ok('%fastaudit').startswith('fastaudit: off:')


def test_plain_ipython_shell(tmp_path):
    """No kernel: IPython's own shell, where asyncio may not be imported yet
    when the first context is entered."""
    w = tmp_path / 'w'
    w.mkdir()
    inside, outside = repr(str(w / 'in.txt')), repr(str(tmp_path / 'out.txt'))
    cells = ['%load_ext fastaudit', f'%fastaudit on {w}', f'open({inside}, "w")',
             f'open({outside}, "w")', '!ls', '', '%fastaudit off', None,
             f'open({outside}, "w")']
    script = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
import fastaudit
sh = InteractiveShell.instance(ipython_dir=sys.argv[2])
for code in json.loads(sys.argv[1]):
    if code is None:
        print('LIVE', fastaudit.audit_state()['live_entries'], flush=True)
        continue
    r = sh.run_cell(code)
    err = r.error_in_exec or r.error_before_exec
    print('CELL', 'ok' if r.success else type(err).__name__, flush=True)
"""
    r = subprocess.run([sys.executable, '-c', script, json.dumps(cells),
                        str(tmp_path / 'ipython')],
                       capture_output=True, text=True, timeout=REPLY_TIMEOUT)
    got = [line for line in r.stdout.splitlines() if line.startswith(('CELL', 'LIVE'))]
    assert got == ['CELL ok', 'CELL ok', 'CELL ok', 'CELL AuditDenied', 'CELL ExecRefused',
                   'CELL ok', 'CELL ok', 'LIVE 0', 'CELL ok'], r.stdout + r.stderr
    assert (w / 'in.txt').exists()
