#!/usr/bin/env python3
"""Would boosted trees judge record pairs better than a forest, on twinpage's signals?

A proxy, not twinpage's model: scikit-learn's random forest (200 trees, 0.7 of the
signals per split, as twinpage's forest) against its histogram gradient boosting
(learning rate 0.05, 500 rounds, 31 leaves, 20 pairs a leaf, L2 1.0), each fitted on a
dataset's whole train split and measured on its valid split (F1 at p >= 0.5, mean of
seeds 7 / 8 / 9). Neither has twinpage's learned contrast of the words two titles
disagree on, so both sit under twinpage's own F1 where that matters (Amazon-Google).

    cargo build --release && lab/er-benchmark.py --work /tmp/erb     # the pages
    for f in /tmp/erb/pages/*.train.csv /tmp/erb/pages/*.valid.csv; do
        target/release/twinpage signals --no-render --pairs "$f" --out "${f%.csv}.signals.csv"
    done
    python3 -m venv /tmp/skv && /tmp/skv/bin/pip install numpy pandas scikit-learn
    /tmp/skv/bin/python lab/boosted-trees-proxy.py /tmp/erb/pages      # ~3 minutes
"""

import glob
import os
import sys

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.metrics import f1_score

SEEDS = (7, 8, 9)


def signals(path):
    """The signal columns (named `family.signal`) and the labels of a signals file."""
    frame = pd.read_csv(path, low_memory=False)
    columns = [c for c in frame.columns if "." in c]
    values = frame[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    return values, frame["label"].to_numpy()


def forest(seed):
    return RandomForestClassifier(200, max_features=0.7, random_state=seed, n_jobs=2)


def boosted(seed):
    return HistGradientBoostingClassifier(learning_rate=0.05, max_iter=500, max_leaf_nodes=31,
                                          min_samples_leaf=20, l2_regularization=1.0,
                                          early_stopping=False, random_state=seed)


def mean_f1(make, train, valid, missing):
    """Mean F1 over the seeds; `missing` stands for a signal without a value, or None
    for a learner that takes missing values as they are."""
    (xt, yt), (xv, yv) = train, valid
    if missing is not None:
        xt, xv = np.nan_to_num(xt, nan=missing), np.nan_to_num(xv, nan=missing)
    scores = [f1_score(yv, make(seed).fit(xt, yt).predict_proba(xv)[:, 1] >= 0.5)
              for seed in SEEDS]
    return float(np.mean(scores))


def main():
    pages = sys.argv[1] if len(sys.argv) > 1 else "/tmp/erb/pages"
    print("| dataset (valid) | forest | boosted trees | change |")
    print("|---|---|---|---|")
    for train_path in sorted(glob.glob(os.path.join(pages, "*.train.signals.csv"))):
        name = os.path.basename(train_path)[: -len(".train.signals.csv")]
        train = signals(train_path)
        valid = signals(os.path.join(pages, f"{name}.valid.signals.csv"))
        by_forest = mean_f1(forest, train, valid, -1.0)
        by_boosting = mean_f1(boosted, train, valid, None)
        print(f"| {name} | {by_forest:.3f} | {by_boosting:.3f} | {by_boosting - by_forest:+.3f} |",
              flush=True)


if __name__ == "__main__":
    main()
