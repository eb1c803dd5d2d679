"""Peak host memory of one call: how far the process's resident set grows
above where it stood before the call (Linux).

Before the call, freed heap memory goes back to the system (glibc's
`malloc_trim(0)`, so that the call cannot reuse pages another model left
behind unseen) and the kernel's resident high-water mark is reset to the
current resident set (`5` written to `/proc/self/clear_refs`); after it, the
peak is `VmHWM - VmRSS(before)`. The number covers everything the call
touches in host memory: the backend's buffers (activations, gradients,
optimizer updates) and, on a first call, compilation.
"""

import ctypes
import ctypes.util
import os
import re
import time

CLEAR_REFS = "/proc/self/clear_refs"
STATUS = "/proc/self/status"
METHOD = (
    "host resident-set growth during a call (VmHWM after the call minus VmRSS before it; "
    "before each call malloc_trim(0) and a reset of the high-water mark through "
    "/proc/self/clear_refs), MiB: for the first training step (compilation included) and "
    "the largest over the timed steps / predictions. Memory a backend keeps pooled from "
    "its first call (TensorFlow with XLA does) is not new in later calls"
)


def _status_kib(field):
    with open(STATUS) as status:
        return int(re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.MULTILINE).group(1))


def _libc_trim():
    """glibc's `malloc_trim`, or a no-op where there is none."""
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    return getattr(libc, "malloc_trim", lambda pad: 0)


def unavailable_reason():
    """Why the peak cannot be measured here, or None when it can."""
    if not os.path.exists(STATUS):
        return f"no {STATUS} (not Linux)"
    try:
        with open(CLEAR_REFS, "w") as clear:
            clear.write("5")
    except OSError as error:
        return f"cannot reset the resident high-water mark ({CLEAR_REFS}: {error.strerror})"
    return None


class PeakMemory:
    """`timed(fn)` runs `fn()` and returns its wall seconds and its peak
    resident growth in MiB (None where `reason` says why it cannot be
    measured); the memory bookkeeping stays outside the timed span."""

    def __init__(self):
        self.reason = unavailable_reason()
        self._trim = _libc_trim()

    def timed(self, fn):
        if self.reason:
            return _seconds(fn), None
        self._trim(0)
        with open(CLEAR_REFS, "w") as clear:
            clear.write("5")
        before = _status_kib("VmRSS")
        seconds = _seconds(fn)
        return seconds, max(0, _status_kib("VmHWM") - before) / 1024


def _seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
