# SPDX-License-Identifier: Apache-2.0
"""What a test compares before and after a refused call: the disk under a
directory, so that "nothing created, truncated, renamed or removed" is one
equality."""
import os


def snapshot(top):
    """Every entry under top: names, types, modes, sizes, times, contents."""
    out = {}
    for dirpath, dirs, files in os.walk(top):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            body = None
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, 'rb') as f:
                    body = f.read()
            out[os.path.relpath(p, top)] = (st.st_mode, st.st_size, st.st_mtime_ns, body)
    return out
