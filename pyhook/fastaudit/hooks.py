# SPDX-License-Identifier: Apache-2.0
"""Monitor hooks bundled with fastaudit.

``lxml_monitor`` lets ordinary lxml calls run unmonitored and keeps the
lxml calls that write files without a Python ``open`` event audited. It is
active by default (a host that pins ``fastaudit.core.entry_points`` lists it
itself, as ``fastaudit.hooks:lxml_monitor``); hosts can call or chain it.
"""
from ._fastaudit import lxml_monitor

__all__ = ['lxml_monitor']
