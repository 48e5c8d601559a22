"""The array types the app's modules annotate with (one definition, imported everywhere)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]  # the toy engine computes in float64
Mask = NDArray[np.bool_]  # True = may attend
