"""graphferry's version: a leaf module, so that what writes it (a store's manifest, ``--version``)
imports nothing else of graphferry (the top-level package hands out much more, on first use).

Example:
    >>> from graphferry.version import __version__
    >>> __version__ == __import__("graphferry").__version__
    True
"""

__version__ = "0.1.0"
