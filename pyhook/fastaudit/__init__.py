"""fastaudit: an in-process execution guard for LLM-generated Python.

The audit hook, the contexts and the call monitor are implemented in C
(``fastaudit._fastaudit``); this package adds call tracking and the
entry-point metadata the hook is configured from.
"""
__version__ = "0.3.0"

from .core import *  # noqa: F401,F403
from .core import __all__  # noqa: F401

# Files beneath a pinned root (PathFence's API), on the same engine.
from .workspace import Workspace, WorkspaceEscapeError, safe_open  # noqa: E402

__all__ = list(__all__) + ['Workspace', 'WorkspaceEscapeError', 'safe_open']
