"""Moved: the host-side helpers are :mod:`graphferry.host_ops` (every layer uses them; they are not
CPU-backend code). This name is kept for code written against it.

Example:
    >>> from graphferry.backends.cpu import host_ops
    >>> import graphferry.host_ops
    >>> host_ops.gather_rows is graphferry.host_ops.gather_rows
    True
"""

from __future__ import annotations

from ...host_ops import *  # noqa: F401,F403
from ...host_ops import _lib  # noqa: F401
