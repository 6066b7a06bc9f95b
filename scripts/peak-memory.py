#!/usr/bin/env python3
"""Runs a command and says its wall time and the machine's peak memory in use above
what was in use when it started, sampled every 0.5 s from /proc/meminfo.

    scripts/peak-memory.py COMMAND [ARGS...]

For a run spread over processes that are not the command's children (a Spark
cluster's workers and executors), where /usr/bin/time -v sees only the command's own
tree. Other work on the machine counts too: run it on a quiet machine. Standard
library only; exit code is the command's.
"""

import subprocess
import sys
import time


def in_use():
    fields = {}
    with open("/proc/meminfo") as f:
        for line in f:
            name, value = line.split(":", 1)
            fields[name] = int(value.split()[0])
    return (fields["MemTotal"] - fields["MemAvailable"]) * 1024


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    base = in_use()
    started = time.monotonic()
    child = subprocess.Popen(sys.argv[1:])
    peak = base
    while child.poll() is None:
        peak = max(peak, in_use())
        time.sleep(0.5)
    wall = time.monotonic() - started
    print(f"peak-memory: {wall:.1f} s wall, peak {(peak - base) / 2**30:.2f} GiB in use above "
          f"the {base / 2**30:.2f} GiB at the start; exit {child.returncode}", file=sys.stderr)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
