"""Builds the prebuilt kernel library: every variant the package launches,
for each chip, into gpupoor/_kernels/<chip>/<variant>/ (or --out).

  GPUPOOR_OPT=build/bin/gpupoor-opt python -m gpupoor.build_library \\
      [--chips sm_80,sm_86,sm_89,sm_90a] [--only NAME ...] [--jobs N] [--out DIR] [--ptx]

Needs gpupoor-opt (and the ptxas it calls). A machine without MLIR runs the
package from what this wrote; `pip install` of the package after this step
ships the library inside the wheel. `--ptx` writes PTX instead of cubins (no
ptxas): the driver compiles it when it loads a kernel, on the chip and on
every later one (a chip's library on a newer GPU: GPUPOOR_CHIP,
docs/guide/Python.md).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import sys
import time
from pathlib import Path

from .compile import ROW_COPY_DIR, compile_row_copy, compile_variant, compiler_version, find_gpupoor_opt
from .library import INDEX_FILE, PACKAGE_LIBRARY
from .variants import CHIPS, DEFAULT_CHIPS, TILES, VariantKey, library_variants


def build(out: Path, chips: list[str], variants: list[VariantKey], gpupoor_opt: str,
          jobs: int, log=print, ptx: bool = False) -> dict:
    """Compiles `variants` for `chips` under `out` (PTX kernels with `ptx`);
    writes each chip's index.json last. Returns {chip: index}."""
    version = compiler_version(gpupoor_opt)
    indexes = {}
    for chip in chips:
        chip_dir = out / chip
        chip_dir.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        done = 0

        def one(key: VariantKey) -> tuple[VariantKey, list[str]]:
            d = compile_variant(key, chip, chip_dir / key.name, gpupoor_opt, version, ptx=ptx)
            return key, json.loads((d / "variant.json").read_text())["kernels"]

        chip_variants = [key for key in variants if key.builds_for(chip)]

        # Variants built earlier (another --only) stay listed.
        index_file = chip_dir / INDEX_FILE
        index = json.loads(index_file.read_text()) if index_file.is_file() else {"variants": {}}
        index.update({"chip": chip, "compiler": version})
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for key, kernels in pool.map(one, chip_variants):
                done += 1
                index["variants"][key.name] = {"kernels": kernels, "compiler": version}
                log(f"[{chip} {done}/{len(chip_variants)}, {time.monotonic() - start:.0f} s] "
                    f"{key.name}")
        # The row copy the package's padded copies launch (every library has it).
        compile_row_copy(chip, chip_dir / ROW_COPY_DIR, gpupoor_opt, ptx=ptx)
        log(f"[{chip}] {ROW_COPY_DIR}")
        index_file.write_text(json.dumps(index, indent=1, sort_keys=True))
        indexes[chip] = index
    return indexes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpupoor.build_library",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=PACKAGE_LIBRARY,
                        help="library root (default: the package's _kernels)")
    parser.add_argument("--chips", default=",".join(DEFAULT_CHIPS),
                        help=f"chips to build, of {', '.join(CHIPS)}")
    parser.add_argument("--only", nargs="*", metavar="NAME",
                        help="variant names (see gpupoor.variants.VariantKey.name)")
    parser.add_argument("--tiles", default=",".join(TILES), help="tile families to build")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--ptx", action="store_true",
                        help="PTX kernels instead of cubins (the driver compiles them for the "
                             "device: they run on later chips too)")
    args = parser.parse_args(argv)
    gpupoor_opt = find_gpupoor_opt()
    if gpupoor_opt is None:
        print("build_library: gpupoor-opt not found (set GPUPOOR_OPT or put it on PATH)",
              file=sys.stderr)
        return 2
    chips = [c for c in args.chips.split(",") if c]
    for chip in chips:
        if chip not in CHIPS:
            print(f"build_library: --chips: unknown chip {chip!r} (known: {', '.join(CHIPS)})",
                  file=sys.stderr)
            return 2
    tiles = tuple(t for t in args.tiles.split(",") if t)
    unknown = [t for t in tiles if t not in TILES]
    if unknown:
        print(f"build_library: --tiles: unknown {unknown} (known: {', '.join(TILES)})",
              file=sys.stderr)
        return 2
    variants = library_variants(tiles)
    if args.only:
        try:
            variants = [VariantKey.from_name(n) for n in args.only]
        except ValueError as e:
            print(f"build_library: --only: {e}", file=sys.stderr)
            return 2
    try:
        build(args.out, chips, variants, gpupoor_opt, max(1, args.jobs), ptx=args.ptx)
    except RuntimeError as e:
        print(f"build_library: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
