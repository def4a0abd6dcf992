# SPDX-License-Identifier: Apache-2.0
"""mk_audit(symlinks=...): the context's symlink mode, named and judged as
fa-run --symlinks names and judges it.

Each case is a write through a link inside the root. The expected answers
are written out per mode, and the same write is made three ways: in Python
inside mk_audit (the audit hook judges), by native code inside mk_audit
under the preloaded shim (the shim judges with the context's policy), and
by a program under fa-run --symlinks (the process policy).
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from fastaudit import mk_audit

MODES = ('trust', 'beneath', 'nofollow')
FA_RUN = os.environ.get('FA_RUN')
SHIM = os.environ.get('FA_SHIM') or os.path.join(
    os.environ.get('FA_BUILDDIR', ''), 'src', '.libs', 'libfashim.so')

# name -> (the link's target, the path written, allowed in trust, beneath, nofollow)
CASES = {
    'relative_dir_inside': ('d', 'relative_dir_inside/f', (True, True, False)),
    'absolute_dir_inside': ('{root}/d', 'absolute_dir_inside/f', (True, False, False)),
    'final_link_inside': ('target', 'final_link_inside', (True, True, False)),
    'absolute_dir_outside': ('{outside}', 'absolute_dir_outside/f', (False, False, False)),
    'relative_dir_outside': ('../outside', 'relative_dir_outside/f', (False, False, False)),
    'final_link_outside': ('{outside}/t', 'final_link_outside', (False, False, False)),
}


@pytest.fixture
def tree(root, outside):
    (root / 'd').mkdir()
    (root / 'target').write_text('')
    for name, (target, _, _) in CASES.items():
        os.symlink(target.format(root=root, outside=outside), root / name)
    return root, outside


def expected(mode, case):
    return CASES[case][2][MODES.index(mode)]


def landed(root, outside):
    """Files the writes made, wherever they landed."""
    found = set()
    for top in (root, outside):
        for dirpath, _, files in os.walk(top):
            found.update(os.path.join(dirpath, f) for f in files)
    return found


@pytest.mark.parametrize('mode', MODES)
def test_hook_judges_each_link_by_the_mode(tree, mode):
    root, outside = tree
    ap = mk_audit([str(root)], symlinks=mode, monitor_calls=False)
    got = {}
    for case, (_, rel, _) in CASES.items():
        before = landed(root, outside)
        try:
            with ap():
                open(os.path.join(root, rel), 'w').close()
            got[case] = True
        except PermissionError as e:
            got[case] = False
            assert landed(root, outside) == before, (case, 'a refusal left a file')
            assert os.path.join(str(root), rel.split('/')[0]) in str(e) or 'symlink' in str(e) \
                or 'not under any allowed root' in str(e), str(e)
    assert got == {case: expected(mode, case) for case in CASES}


@pytest.mark.skipif(not FA_RUN or not os.path.exists(FA_RUN), reason='fa-run not built')
@pytest.mark.parametrize('mode', MODES)
def test_fa_run_gives_the_same_answers(tree, mode):
    root, outside = tree
    got = {}
    for case, (_, rel, _) in CASES.items():
        path = os.path.join(root, rel)
        p = subprocess.run([FA_RUN, '-w', str(root), '--symlinks=' + mode, '--',
                            'sh', '-c', ': > "$1"', 'sh', path],
                           capture_output=True, text=True, timeout=60)
        got[case] = p.returncode == 0
    assert got == {case: expected(mode, case) for case in CASES}


@pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')
@pytest.mark.parametrize('mode', MODES)
def test_native_writes_in_the_context_follow_its_mode(native_mods, tree, mode):
    root, outside = tree
    probe_dir = os.path.dirname(native_mods[0].__file__)
    code = textwrap.dedent('''
        import json, os, sys
        import fa_probe
        from fastaudit import mk_audit
        root, mode, rels = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        ap = mk_audit([root], symlinks=mode, monitor_calls=False)
        res = {}
        for case, rel in rels.items():
            try:
                with ap():
                    fa_probe.write_file(os.path.join(root, rel), 'x')
                res[case] = True
            except PermissionError:
                res[case] = False
        print(json.dumps(res))
    ''')
    env = dict(os.environ, LD_PRELOAD=SHIM,
               PYTHONPATH=os.pathsep.join([probe_dir] + sys.path))
    rels = {case: rel for case, (_, rel, _) in CASES.items()}
    p = subprocess.run([sys.executable, '-c', code, str(root), mode, json.dumps(rels)],
                       env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.splitlines()[-1])
    assert got == {case: expected(mode, case) for case in CASES}


def test_default_is_trust(tree):
    root, _ = tree
    with mk_audit([str(root)], monitor_calls=False)():
        open(os.path.join(root, 'absolute_dir_inside', 'f'), 'w').close()


@pytest.mark.parametrize('bad', ['follow', 'Trust', '', 1, b'beneath'])
def test_anything_else_is_a_value_error_naming_the_modes(root, bad):
    with pytest.raises(ValueError) as e:
        mk_audit([str(root)], symlinks=bad, monitor_calls=False)
    assert all(mode in str(e.value) for mode in MODES), str(e.value)
    assert repr(bad) in str(e.value)


def test_a_policy_files_mode_applies_and_the_keyword_must_agree(tree, tmp_path):
    root, _ = tree
    through_abs = os.path.join(root, 'absolute_dir_inside', 'f')
    beneath = tmp_path / 'beneath.policy'
    beneath.write_text(f'root {root}\nsymlinks beneath\n')
    for ap in (mk_audit(policy=str(beneath), monitor_calls=False),
               mk_audit(policy=str(beneath), symlinks='beneath', monitor_calls=False)):
        with pytest.raises(PermissionError):
            with ap():
                open(through_abs, 'w').close()
    with pytest.raises(ValueError, match="symlinks='trust' contradicts 'symlinks beneath'"):
        mk_audit(policy=str(beneath), symlinks='trust', monitor_calls=False)
    silent = tmp_path / 'silent.policy'
    silent.write_text(f'root {root}\n')
    with mk_audit(policy=str(silent), monitor_calls=False)():
        open(through_abs, 'w').close()
    with pytest.raises(PermissionError):
        with mk_audit(policy=str(silent), symlinks='nofollow', monitor_calls=False)():
            open(os.path.join(root, 'relative_dir_inside', 'f'), 'w').close()
