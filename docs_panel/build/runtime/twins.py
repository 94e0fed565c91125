"""The bytes and names of a bundle's files: canonical JSON, content-hashed names, and
the gzip and Zstandard twins a host (or the panel's loader) sends in their place.

Every file but ``embed.js`` carries a content hash in its name, so it can be cached
forever; it never decides which files a bundle holds (:mod:`.bundle` does).

    >>> hashed_name("panel.css", b"")
    'panel.e3b0c44298.css'

Output is deterministic: the same bytes give the same names and twins.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import zlib
from collections.abc import Callable, Mapping

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

COMPRESSIBLE = (".js", ".mjs", ".wasm", ".json", ".css", ".py", ".zip")
MIN_GZIP_SIZE = 1024
# Level 19 with a 2 MiB window: the wasm is 2.8 MiB (3.4 as gzip). The window is what
# the streaming decoder copies along per block, so a larger one costs the reader time.
ZSTD_OPTIONS: dict[int, int] = {
    zstd.CompressionParameter.compression_level: 19,
    zstd.CompressionParameter.window_log: 21,
}
#: Each twin's method in full (library version, options): what a cache of twins
#: (``build.reuse_cache``) keys them by beside the bytes.
ZSTD_METHOD = f"zstd {zstd.zstd_version} {sorted(ZSTD_OPTIONS.items())}"
GZIP_METHOD = f"gzip {zlib.ZLIB_RUNTIME_VERSION} level 9 mtime 0"
#: Makes a twin of the bytes given: ``zstd_compressed``, ``gzipped``, or a cache of them.
Compress = Callable[[bytes], bytes]


def hashed_name(name: str, data: bytes) -> str:
    """``panel.css`` → ``panel.3f2a9c1b0d.css``: a new name whenever the bytes change."""
    stem, dot, ext = name.partition(".")
    digest = hashlib.sha256(data).hexdigest()[:10]
    return f"{stem}.{digest}{dot}{ext}"


def zstd_twin(
    out: dict[str, bytes],
    twins: dict[str, list[str]],
    name: str,
    data: bytes,
    content_type: str,
    *,
    keep: bool = False,
    listed: bool = True,
    compress: Compress | None = None,
) -> str:
    """Put ``name``'s Zstandard twin (made by ``compress``, default ``zstd_compressed``) in
    ``out`` (and ``name`` itself if ``keep``), listed in ``twins`` under ``content_type``
    for the loader unless not ``listed``."""
    out[name + ".zst"] = (compress or zstd_compressed)(data)
    if keep:
        out[name] = data
    if listed:
        twins.setdefault(content_type, []).append(name)
    return name


def json_bytes(values: object) -> bytes:
    """``values`` as compact JSON with sorted keys: the same values, the same bytes."""
    return json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def gzipped(data: bytes) -> bytes:
    """``data`` gzipped at level 9 with no timestamp (``GZIP_METHOD``), so a rebuild gives
    the same bytes."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def zstd_compressed(data: bytes) -> bytes:
    """``data``'s Zstandard twin (``ZSTD_METHOD``)."""
    return zstd.compress(data, options=ZSTD_OPTIONS)


def with_gzip_twins(
    files: Mapping[str, bytes], compress: Compress | None = None
) -> dict[str, bytes]:
    """Add ``name.gz`` beside each compressible file where gzip (``compress``, default
    ``gzipped``) actually saves bytes."""
    compress = compress or gzipped
    out = dict(files)
    for name, data in files.items():
        if name + ".zst" in files or name + ".gz" in files:  # its twin is made already
            continue
        if name.endswith(COMPRESSIBLE) and len(data) >= MIN_GZIP_SIZE:
            packed = compress(data)
            if len(packed) < len(data) * 0.9:
                out[name + ".gz"] = packed
    return out
