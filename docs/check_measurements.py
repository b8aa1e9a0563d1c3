#!/usr/bin/env python3
"""Checks that every measured figure in the docs says where and when it was
measured: each markdown section (a heading and its text up to the next
heading of any level) holding a speed figure (TFLOP/s, GB/s, a ratio to
cuBLAS, microseconds) must name a device (H100, H200, RTX ...) and a date
(YYYY-MM-DD) in its heading or text, or inherit them from its parent section.
Exit 1 with the offending sections listed. ctest runs it (docs-measurements).

  python3 docs/check_measurements.py [FILE.md ...]   (default: README.md docs/**/*.md)
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURE = re.compile(r"\d[\d.,]*\s*(TFLOP/s|GB/s|TB/s|us\b|µs)|\d\.\d+x\b|\d\.\d+ of cuBLAS"
                    r"|% of the copy|\d\.\d+-\d\.\d+x")
DEVICE = re.compile(r"H100|H200|A100|RTX \d{4}|L40")
DATE = re.compile(r"20\d\d-\d\d-\d\d")


def sections(text):
    """(level, heading, body) of each section; code blocks are not headings."""
    out, level, head, body, fence = [], 0, "", [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"(#+)\s+(.*)", line)
        if m:
            out.append((level, head, "\n".join(body)))
            level, head, body = len(m.group(1)), m.group(2), []
        else:
            body.append(line)
    out.append((level, head, "\n".join(body)))
    return out


def check(path):
    bad = []
    stack = []  # (level, device named here or above, date named here or above)
    for level, head, body in sections(open(path).read()):
        while stack and stack[-1][0] >= level and level > 0:
            stack.pop()
        text = head + "\n" + body
        parent_device = stack[-1][1] if stack else False
        parent_date = stack[-1][2] if stack else False
        device = bool(DEVICE.search(text)) or parent_device
        date = bool(DATE.search(text)) or parent_date
        stack.append((level, device, date))
        if FIGURE.search(body) and not (device and date):
            what = " or ".join(w for w, ok in (("device", device), ("date", date)) if not ok)
            bad.append(f"{os.path.relpath(path, ROOT)}: section '{head or '(top)'}' has measured "
                       f"figures but names no {what}")
    return bad


def main():
    files = sys.argv[1:] or [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    bad = [b for f in files for b in check(f)]
    for b in bad:
        print(b)
    if bad:
        print(f"check_measurements.py: {len(bad)} sections name no device or date for their figures")
        return 1
    print(f"check_measurements.py: {len(files)} files, every figure dated and placed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
