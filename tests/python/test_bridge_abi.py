# SPDX-License-Identifier: Apache-2.0
"""The bridge's ABI check: a shim whose fingerprint of what crosses the
bridge (policy layout and limits, decision, denial record, thread context,
the table itself) differs from the extension's is refused, with both
values in the reason, and native checks stay off."""
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

SRC = os.environ.get('FA_SRCDIR')
CC = (sysconfig.get_config_var('CC') or 'cc').split()[0]

pytestmark = pytest.mark.skipif(not SRC or not shutil.which(CC), reason='needs the sources and a C compiler')

FAKE = '''
#include "shim/fa_bridge.h"

/* Built from these very headers, one value off where the test says. */
static const struct fa_bridge bridge = {
	.version = FA_BRIDGE_VERSION + VERSION_DELTA,
	.size = sizeof(struct fa_bridge),
	.engine_abi = FA_ENGINE_ABI ^ ABI_XOR,
};

__attribute__((visibility("default"))) const struct fa_bridge *fa_bridge_v1(void)
{
	return &bridge;
}
'''


def fake_shim(tmp_path, version_delta=0, abi_xor=0):
    src = tmp_path / 'fake.c'
    src.write_text(FAKE)
    so = tmp_path / 'fake.so'
    subprocess.run([CC, '-shared', '-fPIC', '-o', str(so), str(src),
                    '-I', os.path.join(SRC, 'src'), '-I', os.environ['FA_BUILDDIR'],
                    f'-DVERSION_DELTA={version_delta}', f'-DABI_XOR={abi_xor}'],
                   check=True, capture_output=True, text=True)
    return so


def state_under(so):
    code = textwrap.dedent('''
        import json
        from fastaudit import audit_state
        s = audit_state()
        print(json.dumps([s['native'], s['native_reason']]))
    ''')
    env = dict(os.environ, LD_PRELOAD=str(so))
    p = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return tuple(__import__('json').loads(p.stdout.splitlines()[-1]))


def test_a_shim_from_another_engine_is_refused_with_both_fingerprints(tmp_path):
    native, reason = state_under(fake_shim(tmp_path, abi_xor=0x10))
    assert native is False
    assert 'built from another engine' in reason, reason
    theirs, ours = reason.split('ABI ')[1].split(', ours ')
    assert int(theirs, 16) ^ int(ours.rstrip(')'), 16) == 0x10


def test_a_shim_speaking_another_bridge_version_is_refused(tmp_path):
    native, reason = state_under(fake_shim(tmp_path, version_delta=1))
    assert native is False
    assert 'another bridge version' in reason, reason
