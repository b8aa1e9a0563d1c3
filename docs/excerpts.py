#!/usr/bin/env python3
"""Regenerates the IR excerpts in docs/design/Architecture.md from the tools, or
checks them (--check: exit 1 and a diff when a block is stale; ctest runs
this, so the page cannot drift from what gpupoor-opt prints).

  GPUPOOR_OPT=build/bin/gpupoor-opt python3 docs/excerpts.py [--check]

A block sits between `<!-- excerpt: NAME -->` and `<!-- end excerpt -->`;
EXCERPTS says what command fills it.
"""

import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "design", "Architecture.md")
EXAMPLE = "examples/matmul.mlir"


def opt(*args):
    tool = os.environ.get("GPUPOOR_OPT", os.path.join(ROOT, "build", "bin", "gpupoor-opt"))
    res = subprocess.run([tool, os.path.join(ROOT, EXAMPLE), *args], capture_output=True,
                         text=True, check=True)
    return res.stdout


def grep(text, pattern):
    return "\n".join(l.strip() for l in text.splitlines() if re.search(pattern, l))


def _short(line):
    """A launch or binary line cut before what varies run to run (the
    binary's compile-time properties) or runs long."""
    line = line.split(", properties")[0]
    return line[:160] + " ..." if len(line) > 160 else line + (" ..." if "gpu.binary" in line else "")


# name -> (command shown, function producing the block's text)
EXCERPTS = {
    "split-k": (f"gpupoor-opt {EXAMPLE} --gpupoor-split-k",
                lambda: opt("--gpupoor-split-k").strip()),
    "config": (f"gpupoor-opt {EXAMPLE} --gpupoor-split-k --gpupoor-select-kernel-config "
               "| grep -o 'config(...)'",
               lambda: "\n".join(re.findall(r"config\(#gpupoor\.kernel_config<[^>]*>\)",
                                            opt("--gpupoor-split-k",
                                                "--gpupoor-select-kernel-config")))),
    "launch": (f"gpupoor-opt {EXAMPLE} --gpupoor-to-cubin='chip=sm_90 cubin-format=isa' "
               "| grep 'gpu.launch_func\\|gpu.binary'",
               lambda: "\n".join(_short(l) for l in
                                 grep(opt("--gpupoor-to-cubin=chip=sm_90 cubin-format=isa"),
                                      r"gpu\.launch_func|gpu\.binary @").splitlines())),
}

BLOCK = re.compile(r"(<!-- excerpt: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end excerpt -->)",
                   re.S)


def render(name):
    command, produce = EXCERPTS[name]
    return f"```\n$ {command}\n{produce()}\n```\n"


def main():
    check = "--check" in sys.argv[1:]
    page = open(PAGE).read()
    names = [m.group("name") for m in BLOCK.finditer(page)]
    unknown = [n for n in names if n not in EXCERPTS]
    if unknown or sorted(names) != sorted(EXCERPTS):
        sys.exit(f"excerpts.py: the page's blocks {names} do not match {sorted(EXCERPTS)}")
    new = BLOCK.sub(lambda m: m.group(1) + render(m.group("name")) + m.group(4), page)
    if check:
        if new != page:
            sys.stdout.writelines(difflib.unified_diff(
                page.splitlines(True), new.splitlines(True), "docs/design/Architecture.md",
                "regenerated"))
            print("excerpts.py: docs/design/Architecture.md is stale: run docs/excerpts.py")
            return 1
        print(f"excerpts.py: {len(names)} excerpts up to date")
        return 0
    open(PAGE, "w").write(new)
    print(f"excerpts.py: wrote {len(names)} excerpts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
