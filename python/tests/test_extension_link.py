"""How gpupoor._C is linked: on the C++ runtime PyTorch's libraries run on,
not a copy of its own (setup.py's shared_libstdcxx). A copy's iostreams
faulted on every integer a TORCH_CHECK formats, so that a bad argument
crashed the process instead of raising."""

import shutil
import subprocess

import pytest

from gpupoor._native import C

readelf = shutil.which("readelf")
pytestmark = pytest.mark.skipif(readelf is None, reason="needs binutils' readelf")

# std::ostream::_M_insert<long>, which c10::str calls to format an int64_t.
_OSTREAM_INSERT_LONG = "_ZNSo9_M_insertIlEERSoT_"


def _readelf(*flags: str) -> str:
    return subprocess.run([readelf, "-W", *flags, C.__file__], check=True,
                          capture_output=True, text=True).stdout


def test_extension_needs_the_shared_libstdcxx():
    needed = [line for line in _readelf("-d").splitlines() if "(NEEDED)" in line]
    assert any("[libstdc++.so" in line for line in needed), needed


def test_extension_defines_no_iostreams_of_its_own():
    defined = [line.split()[-1] for line in _readelf("--dyn-syms").splitlines()
               if line.strip()[:1].isdigit() and " UND " not in line]
    assert _OSTREAM_INSERT_LONG not in defined
    # An integer in a TORCH_CHECK's message: raised, not a fault.
    with pytest.raises(ValueError, match="cols must be >= 1, got 0"):
        C.padded_row_elems(0)
