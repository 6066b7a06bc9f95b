"""Scoring through the Python package against the command line, on the same pairs.

    target/python-venv/bin/python scripts/bench-python-score.py [PAIRS.csv] [RUNS]

Default: training-data/web/train.csv (stored renders, so no browser starts), 3 runs
of each, alternated. Prints each run's seconds, the medians, Python's speed as a share
of the CLI's, and the largest |p_duplicate| difference between the two.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

import twinpage

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(os.environ.get("TWINPAGE_BIN", ROOT / "target" / "release" / "twinpage"))


def main(pairs=str(ROOT / "training-data" / "web" / "train.csv"), runs="3"):
    frame = twinpage.read_pairs(pairs)
    model = twinpage.Model.load()
    cli_times, py_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "scored.csv"
        for _ in range(int(runs)):
            started = time.perf_counter()
            subprocess.run([str(BIN), "score", "--pairs", pairs, "--out", str(out)],
                           check=True, capture_output=True)
            cli_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            scored = model.score(frame)
            py_times.append(time.perf_counter() - started)
        theirs = pd.read_csv(out)
    gap = (scored["p_duplicate"] - theirs["p_duplicate"]).abs().max()
    cli, py = statistics.median(cli_times), statistics.median(py_times)
    print(f"{len(frame)} pairs of {pairs}")
    print(f"command line: {', '.join(f'{t:.2f}' for t in cli_times)} s (median {cli:.2f} s)")
    print(f"Python:       {', '.join(f'{t:.2f}' for t in py_times)} s (median {py:.2f} s)")
    print(f"Python's speed: {cli / py:.2f}x the command line's; largest |p difference| {gap:.1e}")


if __name__ == "__main__":
    main(*sys.argv[1:])
