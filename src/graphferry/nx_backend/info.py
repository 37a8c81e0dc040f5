"""What NetworkX learns about the backend while it imports: see :mod:`_graphferry_nx`, kept import-free there.

Example:
    >>> from graphferry.nx_backend.info import FUNCTIONS, get_info
    >>> set(get_info()["functions"]) == set(FUNCTIONS)
    True
"""

from _graphferry_nx import DEFAULT_CONFIG, FUNCTIONS, get_info

__all__ = ["DEFAULT_CONFIG", "FUNCTIONS", "get_info"]
