"""Sizes on the command line (32MiB, 1GB, 4096) and in messages."""

from __future__ import annotations

import re

# typer is imported where an option's value is refused: ``run``'s one-shot parser
# (graphferry.cli.quick_run) reads sizes without it.

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgtp]?)(i?)(b?)\s*$", re.IGNORECASE)


def parse_size(text: str | int) -> int:
    """Bytes from ``"32MiB"``, ``"1GB"``, ``"512k"`` or a plain integer.

    Accepted: a number (digits, optionally one decimal point) and an optional
    unit. ``KiB/MiB/GiB/TiB/PiB`` and bare ``K/M/G/T/P`` are powers of 1024,
    ``kB/MB/GB/TB/PB`` powers of 1000 (the convention of ``dd``), ``B`` or no
    unit is bytes; fractions are rounded to whole bytes. Refused (``ValueError``):
    zero, negative sizes, exponents (``1e3``: write ``1000`` or ``1kB``), and
    anything else.

    Example:
        >>> parse_size("1.5KiB"), parse_size("2k"), parse_size("3 MB")
        (1536, 2048, 3000000)
        >>> parse_size("1e3")
        Traceback (most recent call last):
        ...
        ValueError: not a size: '1e3' (no exponents; write 1000 or 1kB)
    """
    if isinstance(text, int):
        value = text
    else:
        match = _SIZE_RE.match(text)
        if not match:
            if re.match(r"^\s*[\d.]+e[+-]?\d+\s*$", text, re.IGNORECASE):
                raise ValueError(f"not a size: {text!r} (no exponents; write 1000 or 1kB)")
            raise ValueError(f"not a size: {text!r} (use e.g. 32MiB, 1GB or a number of bytes)")
        number, prefix, binary, byte = match.groups()
        power = "kmgtp".index(prefix.lower()) + 1 if prefix else 0
        if binary and not prefix:
            raise ValueError(f"not a size: {text!r}")
        base = 1000 if (prefix and byte and not binary) else 1024
        value = round(float(number) * base**power)
    if value <= 0:
        raise ValueError(f"size must be positive, got {text!r}")
    return int(value)


def _size_param(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        import typer

        raise typer.BadParameter(str(exc)) from None


#: Smallest --partition-bytes the command line takes: one page. Smaller
#: partitions only multiply per-partition work (1 byte ran 700x slower); the
#: Python API still takes any size, which tests use to split tiny graphs.
MIN_PARTITION_BYTES = 4096


def _partition_size_param(text: str) -> int:
    size = _size_param(text)
    if size < MIN_PARTITION_BYTES:
        import typer

        raise typer.BadParameter(f"{_distinct_bytes(size, MIN_PARTITION_BYTES)} is below the minimum of "
                                 f"{_distinct_bytes(MIN_PARTITION_BYTES, size)} "
                                 "(tiny partitions make every run far slower)")
    return size


def _distinct_bytes(n: int, other: int) -> str:
    """``n`` as :func:`format_bytes` gives it, or in exact bytes where rounding would make it read as ``other``.

    Example:
        >>> _distinct_bytes(4095, 4096), _distinct_bytes(4096, 4095), _distinct_bytes(1024, 4096)
        ('4,095 B', '4,096 B', '1.0 KiB')
    """
    return f"{n:,} B" if format_bytes(n) == format_bytes(other) else format_bytes(n)


def format_bytes(n: int) -> str:
    """``1536 -> '1.5 KiB'`` (binary units, as the partition sizes are)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")
