#!/usr/bin/env python3
"""Record matching on every entity-matching benchmark at hand, by the standard protocol.

For each ER-Magellan dataset and WDC category under --source that has a training file, a
fetched-only model is trained on the dataset's whole train split and measured on its whole
valid split (neither is in the repository: `training-data/er` is a sample of them). Prints
one Markdown table beside the published F1 of other matchers (test splits; ours is valid):
F1 at the model's F1 cut, the share of pairs decided automatically and the precision of those
decisions. With several seeds, each seed's figures and their mean: F1 moves by points
from one seed to the next (the seed draws the fit / calibration split and the trees).

    lab/er-benchmark.py [--source ../shared/data] [--work target/er-benchmark]
                            [--twinpage target/release/twinpage] [--only NAME ...]
                            [--seed N ...] [--train-args "--fit judged --precision-target 0.95"]
                            [--layout bare|renamed|across --work target/er-benchmark-LAYOUT]

Needs `cargo build --release` first. Python 3 standard library only. About 3 minutes on
2 cores (conversion of ~46k records, then ~20 trainings and evaluations).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import shlex
import subprocess
import sys

# Published F1 on the DeepMatcher test splits: Magellan, DeepMatcher, Ditto.
PUBLISHED = {
    "Structured/Amazon-Google": (0.491, 0.693, 0.756),
    "Structured/Beer": (0.788, 0.727, 0.943),
    "Structured/DBLP-ACM": (0.984, 0.984, 0.990),
    "Structured/DBLP-GoogleScholar": (0.923, 0.947, 0.956),
    "Structured/Fodors-Zagats": (1.000, 1.000, 1.000),
    "Structured/Walmart-Amazon": (0.719, 0.676, 0.868),
    "Structured/iTunes-Amazon": (0.913, 0.880, 0.971),
    "Dirty/DBLP-ACM": (0.918, 0.981, 0.990),
    "Dirty/DBLP-GoogleScholar": (0.826, 0.938, 0.957),
    "Dirty/Walmart-Amazon": (0.378, 0.539, 0.857),
    "Dirty/iTunes-Amazon": (0.461, 0.795, 0.959),
    "Textual/Abt-Buy": (0.436, 0.628, 0.893),
}


def split_by_dataset(path: str, out_dir: str, split: str) -> dict[str, str]:
    """Writes one pair file per dataset; returns dataset -> file."""
    rows = collections.defaultdict(list)
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        column = header.index("dataset")
        for row in reader:
            rows[row[column]].append(row)
    files = {}
    for dataset, dataset_rows in rows.items():
        name = os.path.join(out_dir, f"{dataset.replace('/', '_')}.{split}.csv")
        with open(name, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(dataset_rows)
        files[dataset] = name
    return files


def run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return done.stdout


def measure(twinpage: str, train: str, valid: str, model: str, seed: int, extra: list[str]) -> dict:
    run([twinpage, "train", "--pairs", train, "--no-render", "--seed", str(seed), "--out", model,
         *extra])
    report = json.loads(run([twinpage, "evaluate", "--pairs", valid, "--model", model,
                             "--no-render", "--json"]))
    overall = report["overall"]
    c = overall["confusion"]
    right = c["duplicate_as_duplicate"] + c["distinct_as_distinct"]
    decided = right + c["duplicate_as_distinct"] + c["distinct_as_duplicate"]
    return {
        "pairs": overall["pairs"],
        "f1": overall["f1"],
        "decided": decided / overall["pairs"],
        "decided_precision": right / decided if decided else float("nan"),
        "model": report["model"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="../shared/data")
    ap.add_argument("--work", default="target/er-benchmark")
    ap.add_argument("--twinpage", default="target/release/twinpage")
    ap.add_argument("--layout", choices=["site", "bare", "renamed", "across"], default="site",
                    help="how the records are written as pages (training-data/convert_er.py "
                         "--layout); give each layout its own --work")
    ap.add_argument("--only", nargs="*", help="datasets to run (e.g. Textual/Abt-Buy)")
    ap.add_argument("--seed", type=int, nargs="+", default=[7],
                    help="training seed(s) (fit / calibration split, trees); several give each and the mean")
    ap.add_argument("--train-args", default="", help="more `twinpage train` options, e.g. a decision policy")
    args = ap.parse_args()
    if not os.access(args.twinpage, os.X_OK):
        sys.exit(f"{args.twinpage} missing: run `cargo build --release` first")
    pages = os.path.join(args.work, "pages")
    here = os.path.dirname(os.path.abspath(__file__))
    run([sys.executable, os.path.join(here, "..", "training-data", "convert_er.py"), "--full",
         "--source", args.source, "--out", pages, "--layout", args.layout])
    train = split_by_dataset(os.path.join(pages, "train.csv"), pages, "train")
    valid = split_by_dataset(os.path.join(pages, "valid.csv"), pages, "valid")
    datasets = sorted(d for d in train if d in valid and (not args.only or d in args.only))
    print("| dataset (valid split) | train / valid pairs | twinpage F1 | decided | precision of decisions "
          "| Magellan | DeepMatcher | Ditto |")
    print("|---|---|---|---|---|---|---|---|")
    extra = shlex.split(args.train_args)
    for dataset in datasets:
        model = os.path.join(args.work, f"{dataset.replace('/', '_')}.json")
        runs = [measure(args.twinpage, train[dataset], valid[dataset], model, seed, extra)
                for seed in args.seed]
        published = " | ".join(f"{f:.3f}" for f in PUBLISHED.get(dataset, ())) or "— | — | —"
        train_pairs = sum(1 for _ in open(train[dataset], encoding="utf-8")) - 1
        f1 = f"**{per_seed(runs, 'f1', '{:.3f}')}**"
        decided = per_seed(runs, "decided", "{:.0%}")
        precision = per_seed(runs, "decided_precision", "{:.3f}")
        print(f"| {dataset} | {train_pairs} / {runs[0]['pairs']} | {f1} | {decided} | {precision} "
              f"| {published} |", flush=True)
    return 0


def per_seed(runs: list[dict], key: str, form: str) -> str:
    """One run's figure; several runs' figures, then their mean."""
    values = [r[key] for r in runs]
    mean = form.format(sum(values) / len(values))
    if len(values) == 1:
        return mean
    return " / ".join(form.format(v) for v in values) + f", mean {mean}"


if __name__ == "__main__":
    sys.exit(main())
