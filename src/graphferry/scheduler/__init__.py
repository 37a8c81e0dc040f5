"""The scheduler: per-partition placement between the runtime and the engines.

* :mod:`.stats`: per-partition statistics of a frontier, computed where it lies;
* :mod:`.cost`: HyTGraph's cost rule, calibrated on the machine (:class:`Calibration`);
* :mod:`.policy`: engine and executor per partition per iteration (:class:`Policy`);
* :mod:`.pool`: one pool of device buffers (slots, resident partitions) under the budget;
* :mod:`.executors`: several executors (device, CPU, later more GPUs) and state merging;
* :mod:`.hybrid`: the ``hybrid`` engine that runs a whole edge_map with all of the above.
"""

from .cost import Calibration, CostModel
from .executors import Executor
from .policy import Policy

__all__ = ["Calibration", "CostModel", "Executor", "Policy"]
