"""Peak resident memory of this process (standard library only: the peer's venv imports it too)."""

from __future__ import annotations

import resource


def peak_mib() -> float:
    """VmHWM, which exec resets (ru_maxrss can report the parent's peak after fork and exec)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
