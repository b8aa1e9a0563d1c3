"""gpupoor for PyTorch: f16-accumulating split-k matrix products.

  from gpupoor.kernels import split_k_sequential
  from gpupoor.modules import LowPrecisionLinear
"""

from .kernels import split_k_sequential
from .modules import LowPrecisionLinear

__all__ = ["split_k_sequential", "LowPrecisionLinear"]
__version__ = "0.1.0"
