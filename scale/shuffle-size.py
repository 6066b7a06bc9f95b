#!/usr/bin/env python3
"""The shuffle a Spark application wrote and read, from its event log, by stage.

    scale/run.sh --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file:/tmp/events \\
        dedupe docs.csv --out run --no-render
    scale/shuffle-size.py /tmp/events/eventlog_v2_app-*     (or a single event log file)

Sums the shuffle metrics of the tasks that finished (SparkListenerTaskEnd events; a
task run again after a lost worker counts each time it finished) and prints, per stage
name, the bytes written and the records, then the totals. Standard library only.
"""

import collections
import glob
import json
import os
import sys


def events(path):
    """The events of a log: a file, or the folder of a rolling (v2) log, in order; a
    line cut short by a run still writing it ends the reading."""
    files = [path]
    if os.path.isdir(path):
        number = lambda f: int(os.path.basename(f).split("_")[1])
        files = sorted(glob.glob(os.path.join(path, "events_*")), key=number)
    for name in files:
        with open(name) as f:
            for line in f:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    return


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    names = {}
    written = collections.Counter()
    records = collections.Counter()
    read = 0
    for event in events(sys.argv[1]):
        if event["Event"] == "SparkListenerStageSubmitted":
            info = event["Stage Info"]
            names[info["Stage ID"]] = info["Stage Name"]
        if event["Event"] != "SparkListenerTaskEnd" or "Task Metrics" not in event:
            continue
        metrics = event["Task Metrics"]
        stage = event["Stage ID"]
        w = metrics.get("Shuffle Write Metrics", {})
        written[stage] += w.get("Shuffle Bytes Written", 0)
        records[stage] += w.get("Shuffle Records Written", 0)
        r = metrics.get("Shuffle Read Metrics", {})
        read += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
    for stage in sorted(written):
        if written[stage]:
            print(f"stage {stage:4} {written[stage] / 2**20:10.1f} MiB {records[stage]:12,} records  "
                  f"{names.get(stage, '?')}")
    print(f"total: {sum(written.values()) / 2**20:.1f} MiB written, {read / 2**20:.1f} MiB read")


if __name__ == "__main__":
    main()
