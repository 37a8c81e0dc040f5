"""click's exceptions, from typer's own copy where it carries one."""

try:  # typer >= 0.2x carries its own copy of click
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as _cx

__all__ = ["_cx"]
