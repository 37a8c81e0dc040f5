"""The CUDA backend (CuPy + NVRTC). Imported only when ``backend="cuda"`` is asked for or found."""
