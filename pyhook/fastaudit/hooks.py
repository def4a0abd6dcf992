"""Monitor hooks bundled with fastaudit.

``lxml_monitor`` lets ordinary lxml calls run unmonitored and keeps the
lxml calls that write files without a Python ``open`` event audited. It is
always active; it is exposed here so hosts can call or chain it.
"""
from ._fastaudit import lxml_monitor

__all__ = ['lxml_monitor']
