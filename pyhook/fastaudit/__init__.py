# SPDX-License-Identifier: Apache-2.0
"""fastaudit: an in-process execution guard for LLM-generated Python.

The audit hook, the contexts and the call monitor are implemented in C
(``fastaudit._fastaudit``); this package adds call tracking and the
entry-point metadata the hook is configured from.
"""
from ._version import __version__  # noqa: F401 (written by configure)
from . import core as _core
from .core import *  # noqa: F401,F403
# The installed libfashim.so, for LD_PRELOAD or a re-exec.
from ._shim import shim_path as shim_path  # noqa: E402

# Files beneath a pinned root (PathFence's API), on the same engine.
from .workspace import Workspace as Workspace  # noqa: E402
from .workspace import WorkspaceEscapeError as WorkspaceEscapeError  # noqa: E402
from .workspace import safe_open as safe_open  # noqa: E402
# A function, coroutine or generator run in a context: Dask and Ray tasks.
from ._audited import audited as audited  # noqa: E402
# What every refusal of the hook and the call monitor raises: a
# PermissionError made in C when _fastaudit loads (its fields are in
# help(AuditDenied)).
from ._fastaudit import AuditDenied as AuditDenied  # noqa: E402

# A form type checkers read: these, then core's names.
__all__ = ['AuditDenied', 'Workspace', 'WorkspaceEscapeError', 'audited', 'safe_open', 'shim_path']
__all__ += _core.__all__
# %load_ext fastaudit: IPython looks for these on the package itself.
from .ipython import load_ipython_extension, unload_ipython_extension  # noqa: E402,F401
