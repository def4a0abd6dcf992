"""fastaudit: an in-process execution guard for LLM-generated Python.

The audit hook, the contexts and the call monitor are implemented in C
(``fastaudit._fastaudit``); this package adds call tracking and the
entry-point metadata the hook is configured from.
"""
from ._version import __version__  # noqa: F401 (written by configure)
from .core import *  # noqa: F401,F403
from .core import __all__  # noqa: F401
# The installed libfashim.so, for LD_PRELOAD or a re-exec.
from ._shim import shim_path  # noqa: E402

# Files beneath a pinned root (PathFence's API), on the same engine.
from .workspace import Workspace, WorkspaceEscapeError, safe_open  # noqa: E402
# What every refusal of the hook and the call monitor raises: a
# PermissionError made in C when _fastaudit loads (its fields are in
# help(AuditDenied)).
from ._fastaudit import AuditDenied  # noqa: E402

__all__ = list(__all__) + ['AuditDenied', 'Workspace', 'WorkspaceEscapeError', 'safe_open',
                           'shim_path']
# %load_ext fastaudit: IPython looks for these on the package itself.
from .ipython import load_ipython_extension, unload_ipython_extension  # noqa: E402,F401
