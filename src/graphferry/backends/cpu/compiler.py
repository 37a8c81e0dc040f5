"""Moved: the host C++ compiler and its cache are :mod:`graphferry.host_ops.compiler` (the CPU
backend's programs and the host helpers both compile there). This name is kept for code written
against it.

Example:
    >>> from graphferry.backends.cpu import compiler
    >>> import graphferry.host_ops.compiler
    >>> compiler.compile_library is graphferry.host_ops.compiler.compile_library
    True
"""

from __future__ import annotations

from ...host_ops.compiler import (  # noqa: F401
    FOOTER_BYTES,
    FOOTER_MAGIC,
    cache_dir,
    compile_library,
    entry_is_valid,
    find_compiler,
    seconds_compiling,
)
