"""Compiling kernel variants with gpupoor-opt: the library build and the
on-demand cache share this.

A variant compiles to one directory: the configured kernel and the fallback
kernels the compiler adds for operands that break its requirements
(`gpupoor_matmul_0{,_async,_elements,_i64}.{cubin,json}`), plus `variant.json`
naming the variant, its options, the compiler that built it and its
kernels in the order the compiler's host code tries them. With
`ptx=True` the kernels are PTX instead (`.ptx`, `cubin-format=isa`; the
manifest names the file as `ptx`), which the driver compiles for the device
it loads on: a chip's kernels then also run on later chips
(build_library --ptx, GPUPOOR_CHIP).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .variants import VariantKey

VARIANT_FILE = "variant.json"

# The row-copy kernel (lib/Transforms/RowCopy.h): gpupoor-offload-to-gpu
# launches it for this copy of rows of 2-byte elements, in batches, with any
# strides; the package launches it for its padded copies.
ROW_COPY_DIR = "row_copy"
ROW_COPY_KERNEL = "gpupoor_row_copy"
ROW_COPY_SOURCE = """\
!rows = memref<?x?x?xf16, strided<[?, ?, 1], offset: ?>>
func.func @row_copy(%src: !rows, %dst: !rows) {
  memref.copy %src, %dst : !rows to !rows
  return
}
"""


def find_gpupoor_opt() -> str | None:
    """gpupoor-opt from $GPUPOOR_OPT, else from PATH; None when neither."""
    path = os.environ.get("GPUPOOR_OPT") or shutil.which("gpupoor-opt")
    return path if path and os.access(path, os.X_OK) else None


def compiler_version(gpupoor_opt: str) -> str:
    """`gpupoor-opt --version`'s text, plus the binary's size and mtime (a
    rebuilt compiler reports the same version but is another compiler)."""
    res = subprocess.run([gpupoor_opt, "--version"], capture_output=True, text=True)
    st = os.stat(gpupoor_opt)
    return f"{res.stdout.strip()} [{st.st_size} bytes, mtime {int(st.st_mtime)}]"


def cache_key(chip: str, key: VariantKey, version: str) -> str:
    """The on-disk cache's key: chip, variant, its source and pipeline
    options and the compiler's version (a package whose source of a variant
    changed must not find the old kernel)."""
    text = json.dumps([chip, key.name, key.source(), key.pipeline_options(chip), version])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def default_cache_dir() -> Path:
    base = os.environ.get("GPUPOOR_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gpupoor")
    return Path(base)


def compile_variant(key: VariantKey, chip: str, out_dir: Path, gpupoor_opt: str,
                    version: str | None = None, ptx: bool = False) -> Path:
    """Compiles `key` for `chip` into `out_dir` (created atomically: a
    half-written directory is never seen); returns it. `ptx`: PTX kernels
    instead of cubins. Raises RuntimeError with gpupoor-opt's diagnostics
    when it fails."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    version = version or compiler_version(gpupoor_opt)
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=".build-") as tmp:
        src = Path(tmp) / "source.mlir"
        src.write_text(key.source())
        dump = Path(tmp) / "kernels"
        fmt = " cubin-format=isa" if ptx else ""
        pipeline = f"--gpupoor-to-cubin={key.pipeline_options(chip)}{fmt} dump-dir={dump}"
        res = subprocess.run([gpupoor_opt, str(src), pipeline, "-o", os.devnull],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"gpupoor-opt failed on variant {key.name} for {chip}:\n"
                               + "\n".join(res.stderr.splitlines()[:30]))
        if not ptx:
            for text in dump.glob("*.ptx"):
                text.unlink()
        # In the order the compiler's host code tries them (the manifests'
        # `order`), which a launcher keeps.
        def order(p: Path) -> int:
            manifest = json.loads(p.read_text())
            if "order" not in manifest:
                raise RuntimeError(f"{gpupoor_opt} wrote manifests without `order` (an older "
                                   "gpupoor-opt than this package's): use this gpupoor's")
            return manifest["order"]

        # (The row copy a program may launch has a manifest of its own.)
        manifests = [p.name for p in sorted(dump.glob("gpupoor_matmul_*.json"), key=order)]
        if "gpupoor_matmul_0.json" not in manifests:
            raise RuntimeError(f"gpupoor-opt wrote no kernel for variant {key.name}")
        (dump / VARIANT_FILE).write_text(json.dumps({
            "variant": key.name, "chip": chip, "options": key.pipeline_options(chip),
            "format": "ptx" if ptx else "cubin", "compiler": version, "kernels": manifests},
            indent=1))
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(dump, out_dir)
    return out_dir


def compile_row_copy(chip: str, out_dir: Path, gpupoor_opt: str, ptx: bool = False) -> Path:
    """Compiles the row-copy kernel for `chip` into `out_dir` (atomically,
    as compile_variant): gpupoor_row_copy.{cubin,ptx} and its manifest."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=".build-") as tmp:
        src = Path(tmp) / "source.mlir"
        src.write_text(ROW_COPY_SOURCE)
        dump = Path(tmp) / "kernels"
        fmt = " cubin-format=isa" if ptx else ""
        pipeline = f"--gpupoor-to-cubin=chip={chip}{fmt} dump-dir={dump}"
        res = subprocess.run([gpupoor_opt, str(src), pipeline, "-o", os.devnull],
                             capture_output=True, text=True)
        if res.returncode != 0 or not (dump / f"{ROW_COPY_KERNEL}.json").is_file():
            raise RuntimeError(f"gpupoor-opt failed on the row copy for {chip}:\n"
                               + "\n".join(res.stderr.splitlines()[:30]))
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(dump, out_dir)
    return out_dir
