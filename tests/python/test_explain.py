"""Every denial says the smallest change that would allow it.

The PermissionError of the audit hook and the OSError of a call the shim
refused both carry exc.fastaudit, a dict with the same keys (layer, rule,
fix), so that a program, or a model reading the exception, can tell the
guard refused it and what would allow it. The native records and the
--log line carry the same fix.
"""
import json
import os
import sys

import pytest

from test_denials import run_logged
from test_native import SHIM


def refusal(fn, *a):
    with pytest.raises(PermissionError) as ei:
        fn(*a)
    return ei.value


def test_hook_outside_names_the_root(mk, root, outside):
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / 'f'), 'w')
    fix = "add %s to mk_audit([...])'s roots" % outside
    assert e.fastaudit == {'layer': 'hook', 'rule': 'outside-roots', 'fix': fix}
    assert e.fix == fix
    assert len(e.__notes__) == 1 and e.__notes__[0].endswith('; to allow: ' + fix)
    assert os.listdir(outside) == []


def test_hook_missing_parents_name_the_nearest_existing_directory(mk, root, outside):
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / 'a' / 'b' / 'f'), 'w')
    assert e.fastaudit['fix'] == "add %s to mk_audit([...])'s roots" % outside


def test_hook_sensitive_place_is_called_out(mk, root, tmp_path, monkeypatch):
    home = tmp_path / 'home'
    (home / '.ssh').mkdir(parents=True)
    monkeypatch.setenv('HOME', str(home))
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(home / '.ssh' / 'authorized_keys'), 'w')
    assert e.fastaudit['fix'].startswith(
        'think twice: %s is a sensitive place (it holds keys)' % (home / '.ssh'))
    assert not (home / '.ssh' / 'authorized_keys').exists()


def test_hook_hard_link_names_the_source_root(mk, root, outside):
    """No symlink option allows a hard link out: the root that holds its source does."""
    (outside / 'sub').mkdir()
    (outside / 'sub' / 'f').write_text('x')
    ap = mk([str(root)], allow_outside_symlinks=True)
    with ap():
        e = refusal(os.link, str(outside / 'sub' / 'f'), str(root / 'l'))
    assert e.fastaudit == {'layer': 'hook', 'rule': 'link-target',
                           'fix': "add %s to mk_audit([...])'s roots" % (outside / 'sub')}
    assert os.listdir(root) == []


def test_hook_outside_symlink_names_the_option(mk, root, outside):
    ap = mk([str(root)])
    with ap():
        e = refusal(os.symlink, str(outside), str(root / 'l'))
    assert e.fastaudit == {'layer': 'hook', 'rule': 'link-target',
                           'fix': 'pass allow_outside_symlinks=True to mk_audit()'}
    assert not os.path.lexists(root / 'l')


def test_hook_symlink_mode_names_the_keyword(mk, root):
    """A link refused by the context's symlink mode: the fix names mk_audit's keyword."""
    (root / 'real').write_text('x')
    os.symlink('real', str(root / 'l'))
    ap = mk([str(root)], symlinks='nofollow')
    with ap():
        e = refusal(open, str(root / 'l'), 'w')
    assert e.fastaudit['rule'] == 'symlink'
    assert e.fastaudit['fix'] == "pass symlinks='trust' to mk_audit(), or write to where the link leads"
    assert (root / 'real').read_text() == 'x'


@pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')
def test_native_record_and_log_carry_the_fix(native_mods, root, outside, tmp_path):
    log = tmp_path / 'log.jsonl'
    r, err = run_logged(native_mods, root, outside, log, '''
        # native calls go on to libc; the call monitor (and its notes) needs 3.12+
        ap = mk_audit([root], native_calls='libc', monitor_calls=sys.version_info >= (3, 12))
        with ap():
            try:
                fa_probe.write_file(out + '/n', 'x')
            except OSError as e:
                res['guard'] = getattr(e, 'fastaudit', None)
        res['record'] = audit_state()['native_denials'][-1]['fix']
    ''')
    fix = "add %s to mk_audit([...])'s roots" % outside
    line = json.loads(log.read_text().splitlines()[-1])
    assert line['fix'] == fix and r['record'] == fix
    assert ('; to allow: ' + fix).encode() in err
    if sys.version_info >= (3, 12):  # the note and attribute come from sys.monitoring RAISE
        assert r['guard'] == {'layer': 'libc', 'rule': 'outside-roots', 'fix': fix}


@pytest.mark.skipif(not os.path.exists(SHIM), reason='libfashim.so not built')
def test_host_approval_is_logged_when_asked(native_mods, root, outside, tmp_path, monkeypatch):
    body = '''
        ap = mk_audit([root], before_deny=lambda *a: True, monitor_calls=False)
        with ap():
            with open(out + '/approved', 'w') as f:
                f.write('x')
        res['made'] = os.path.exists(out + '/approved')
    '''
    log = tmp_path / 'quiet.jsonl'
    r, err = run_logged(native_mods, root, outside, log, body)
    assert r['made'] and log.read_text() == ''      # not asked: no trail
    os.remove(outside / 'approved')
    monkeypatch.setenv('FA_LOG_APPROVALS', '1')
    log = tmp_path / 'trail.jsonl'
    r, err = run_logged(native_mods, root, outside, log, body)
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert r['made'] and len(lines) == 1, lines
    d = lines[0]
    assert d['approved_by'] == 'host' and d['policy'] == 'context' and d['op'] == 'write'
    assert d['path'] == str(outside / 'approved') and d['rule'] is None and d['fix'] is None


def test_hook_blocked_event_says_who_can_allow_it(mk, root):
    import subprocess
    from fastaudit import recent_denials
    ap = mk([str(root)])
    with ap():
        e = refusal(subprocess.run, ['true'])
    assert e.fastaudit['layer'] == 'hook' and e.fastaudit['rule'] == 'blocked-event'
    assert 'subprocess.Popen' in e.fix and 'before_deny' in e.fix and 'track_call' in e.fix
    assert recent_denials()[-1]['fix'] == e.fix


def test_hook_recent_denials_carry_the_fix(mk, root, outside):
    from fastaudit import recent_denials
    ap = mk([str(root)])
    with ap():
        e = refusal(open, str(outside / 'g'), 'w')
    last = [d for d in recent_denials() if d['layer'] == 'hook'][-1]
    assert last['fix'] == e.fix == "add %s to mk_audit([...])'s roots" % outside
