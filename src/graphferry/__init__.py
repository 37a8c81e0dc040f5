"""graphferry: graph analytics on NVIDIA GPUs for graphs whose edges do not fit in GPU memory.

``import graphferry`` needs neither a GPU nor CuPy; the CUDA backend is loaded
only when asked for (or when ``backend="auto"`` finds a GPU).
"""

import logging

from .graph import Graph

__version__ = "0.1.0"
__all__ = ["Graph", "__version__"]

logging.getLogger(__name__).addHandler(logging.NullHandler())
