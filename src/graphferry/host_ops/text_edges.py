"""Text edge lists (``u v [more]`` a line) parsed into int32 arrays by parallel C++ (OpenMP).

The fast path of :func:`graphferry.io.read_edgelist` for the common file: plain
(not compressed) text, non-negative decimal ids below 2**31, no weight read.
The file is memory-mapped and cut into pieces at line ends; every piece is
parsed by its own thread into its own stretch of the output (each line gives
at most one edge, so a piece's line count bounds its edges). Blank lines,
lines starting with ``#`` or ``%``, runs of blanks and ``\\r\\n`` ends are
read as the line-by-line reader reads them; columns after the second are
ignored.

This parser decides nothing about bad input: at the first line it cannot read
(a sign, a letter, one column, an id of 2**31 or more) it stops and returns
where that line starts, and the caller parses that line with the reader that
names the problem (or, when that reader takes the line, reads the file its
own way). So a file is either read exactly as the slower readers read it, or
handed back to them.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> _ = open(path, "w").write("# a comment\\n0 1\\n\\n2\\t3 0.5\\r\\n")
    >>> src, dst, bad = parse_file(path)
    >>> src.tolist(), dst.tolist(), bad
    ([0, 2], [1, 3], None)
    >>> _ = open(path, "w").write("0 1\\n2 x\\n")
    >>> parse_file(path)[2]
    4
"""

from __future__ import annotations

import ctypes
import logging
import os
from functools import lru_cache

import numpy as np

log = logging.getLogger(__name__)

_SOURCE = r"""
#include <cstdint>
#include <cstring>
#include <omp.h>
#define GF_EXPORT extern "C" __attribute__((visibility("default")))

static inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static inline bool digit(char c) { return c >= '0' && c <= '9'; }

// Cut text[0, len) into pieces ending at line ends; lines[c]: the lines of piece c (an upper bound
// on its edges: one per line at most).
GF_EXPORT void gf_text_pieces(const char* t, int64_t len, int64_t pieces, int64_t* bounds, int64_t* lines) {
    bounds[0] = 0;
    for (int64_t c = 1; c < pieces; ++c) {
        int64_t p = len * c / pieces;
        if (p < bounds[c - 1]) p = bounds[c - 1];
        const void* nl = p < len ? memchr(t + p, '\n', len - p) : nullptr;
        bounds[c] = nl ? (const char*)nl - t + 1 : len;
    }
    bounds[pieces] = len;
    #pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < pieces; ++c) {
        int64_t k = 0;
        const int64_t lo = bounds[c], hi = bounds[c + 1];
        for (int64_t i = lo; i < hi; ++i) k += t[i] == '\n';  // vectorised by the compiler
        if (hi > lo && t[hi - 1] != '\n') ++k;  // a last line without its newline
        lines[c] = k;
    }
}

// One id: decimal digits below 2**31. Returns the position after it, or null.
static inline const char* id(const char* p, const char* end, int32_t* out) {
    const char* first = p;
    uint64_t v = 0;
    while (p < end && digit(*p)) v = v * 10 + (uint64_t)(*p++ - '0');
    // no digit, or more than 10 (the sum may have wrapped), or beyond int32
    if (p == first || p - first > 10 || v > 2147483647u) return nullptr;
    *out = (int32_t)v;
    return p;
}

// Piece c's edges into src/dst from base[c] on. rows[c]: edges read; maxid[c]: the largest id (-1:
// none); bad[c]: where the first line it could not read starts (-1: none; the piece stops there).
GF_EXPORT void gf_text_parse(const char* t, const int64_t* bounds, const int64_t* base, int64_t pieces,
                             int comma, int32_t* src, int32_t* dst, int64_t* rows, int64_t* maxid,
                             int64_t* bad) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < pieces; ++c) {
        const char* p = t + bounds[c];
        const char* end = t + bounds[c + 1];
        int32_t* s = src + base[c];
        int32_t* d = dst + base[c];
        int64_t k = 0;
        int32_t mx = -1;
        bad[c] = -1;
        while (p < end) {
            const char* line = p;
            while (p < end && blank(*p)) ++p;
            if (p == end) break;
            if (*p == '\n') { ++p; continue; }
            if (*p == '#' || *p == '%') {
                const void* nl = memchr(p, '\n', end - p);
                p = nl ? (const char*)nl + 1 : end;
                continue;
            }
            int32_t u, v;
            const char* q = id(p, end, &u);
            bool ok = q != nullptr;
            if (ok) {
                const char* r = q;
                while (r < end && blank(*r)) ++r;
                if (comma) {
                    ok = r < end && *r == ',';
                    if (ok) { ++r; while (r < end && blank(*r)) ++r; }
                } else {
                    ok = r > q;  // at least one blank between the ids
                }
                q = ok ? id(r, end, &v) : nullptr;
                // the second id ends the column: a blank, the line's end, or (comma) a comma
                ok = q != nullptr && (q == end || *q == '\n' || blank(*q) || (comma && *q == ','));
            }
            if (!ok) { bad[c] = line - t; break; }
            s[k] = u;
            d[k] = v;
            ++k;
            if (u > mx) mx = u;
            if (v > mx) mx = v;
            while (q < end && *q != '\n') ++q;  // the rest of the line (usually nothing but its end)
            p = q + (q < end);
        }
        rows[c] = k;
        maxid[c] = mx;
    }
}
"""


@lru_cache(maxsize=1)
def _library():
    from .compiler import compile_library

    lib = compile_library(_SOURCE, label="text_edges")
    p64, p32 = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32)
    i64, i32 = ctypes.c_int64, ctypes.c_int
    lib.gf_text_pieces.argtypes = [ctypes.c_void_p, i64, i64, p64, p64]
    lib.gf_text_parse.argtypes = [ctypes.c_void_p, p64, p64, i64, i32, p32, p32, p64, p64, p64]
    return lib


def available() -> bool:
    """Whether the compiled parser can run here (a C++ compiler with OpenMP)."""
    try:
        _library()
    except Exception as exc:  # noqa: BLE001 - no compiler, a failed build: the caller reads its own way
        log.info("compiled text parser unavailable (%s)", exc)
        return False
    return True


def _p(a: np.ndarray, ctype):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


def parse_file(path: str | os.PathLike, *, comma: bool = False, threads: int | None = None
               ) -> tuple[np.ndarray, np.ndarray, int | None]:
    """``(src, dst, bad)``: the edges of a plain text edge list as int32 arrays, in file order.

    ``bad`` is None when every line was read, else the byte offset where the
    first line the parser could not read starts (``src``/``dst`` are then
    incomplete: the caller reads that line its own way). ``comma``: the ids
    are separated by a comma (blanks around it allowed), else by blanks.
    """
    lib = _library()
    size = os.path.getsize(path)
    if size == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.int32), None
    text = np.memmap(path, dtype=np.uint8, mode="r")
    try:
        threads = threads or os.cpu_count() or 1
        pieces = max(1, min(8 * threads, size // (1 << 20) + 1))  # pieces of a MiB at least
        bounds = np.empty(pieces + 1, np.int64)
        lines = np.empty(pieces, np.int64)
        addr = text.ctypes.data
        lib.gf_text_pieces(addr, size, pieces, _p(bounds, ctypes.c_int64), _p(lines, ctypes.c_int64))
        base = np.zeros(pieces, np.int64)
        np.cumsum(lines[:-1], out=base[1:])
        total = int(lines.sum())
        src = np.empty(total, np.int32)
        dst = np.empty(total, np.int32)
        rows = np.empty(pieces, np.int64)
        maxid = np.empty(pieces, np.int64)
        bad = np.empty(pieces, np.int64)
        lib.gf_text_parse(addr, _p(bounds, ctypes.c_int64), _p(base, ctypes.c_int64), pieces, int(comma),
                          _p(src, ctypes.c_int32), _p(dst, ctypes.c_int32), _p(rows, ctypes.c_int64),
                          _p(maxid, ctypes.c_int64), _p(bad, ctypes.c_int64))
    finally:
        del text
    stopped = np.flatnonzero(bad >= 0)
    if len(stopped):
        return src[:0], dst[:0], int(bad[stopped[0]])
    # Close the gaps that comment and blank lines left (none in the common file): pieces move left.
    at = int(rows[0])
    for c in range(1, pieces):
        k = int(rows[c])
        if k and at != base[c]:
            src[at:at + k] = src[base[c]:base[c] + k]
            dst[at:at + k] = dst[base[c]:base[c] + k]
        at += k
    return src[:at], dst[:at], None
