#!/usr/bin/env python3
"""Does a forest read copies in other templates better without the whole-text signals?

A scikit-learn forest on twinpage's own signal vectors, as a quick proxy for the forest of
`twinpage train` (it says which way a change goes, not twinpage's figures): trained on the
web training pairs with every signal, without `word_set_jaccard_text`, and without the
three whole-text distances (word set, shingles, simhash; fetched and rendered), then
counted wrong at p >= 0.5 on the web test split, on the fresh pairs of
`lab/fresh-pages.sh`, and on each kind of the test split left out of training. Steps:

    cargo build --release && lab/fresh-pages.sh            # target/fresh-web
    for s in web/train web/test; do
        target/release/twinpage signals --pairs training-data/$s.csv --out target/sig-${s#web/}.csv
    done
    for s in train test; do
        target/release/twinpage signals --pairs target/fresh-web/$s.csv --out target/sig-fresh-$s.csv
    done
    python3 -m venv target/skl && target/skl/bin/pip install numpy pandas scikit-learn
    target/skl/bin/python lab/whole-text-experiment.py target/sig-train.csv target/sig-test.csv \
        target/sig-fresh-train.csv target/sig-fresh-test.csv

About 6 minutes on 2 cores. Results: lab/RESULTS.md, "Pages the training data never used".
"""

import sys

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import log_loss

WHOLE_TEXT = ("word_set_jaccard_text", "jaccard_shingles_text", "simhash_hamming_text")
GROUPS = ("fetched", "rendered", "growth", "meta", "record", "contrast")


def signal_columns(frame: pd.DataFrame) -> list[str]:
    """The signals the trees read: every group's, less the hashed contrast words."""
    return [c for c in frame.columns
            if "." in c and c.split(".")[0] in GROUPS and not c.startswith("contrast.word")]


def fit(frame: pd.DataFrame, columns: list[str], seed: int) -> RandomForestClassifier:
    forest = RandomForestClassifier(n_estimators=100, max_features=0.7, random_state=seed, n_jobs=2)
    return forest.fit(frame[columns].fillna(-1), frame.label)


def wrong(forest, frame: pd.DataFrame, columns: list[str]) -> tuple[pd.Series, np.ndarray]:
    """Which pairs the forest gets wrong at p >= 0.5, and each pair's p."""
    p = forest.predict_proba(frame[columns].fillna(-1))[:, 1]
    return pd.Series((p >= 0.5) != (frame.label == 1), index=frame.index), p


def main(train_path: str, test_path: str, *fresh_paths: str) -> None:
    train, test = pd.read_csv(train_path, low_memory=False), pd.read_csv(test_path, low_memory=False)
    fresh = pd.concat([pd.read_csv(p, low_memory=False) for p in fresh_paths], ignore_index=True)
    every = signal_columns(train)
    sets = {
        "all": every,
        "without word_set_jaccard_text": [c for c in every if not c.endswith(WHOLE_TEXT[0])],
        "without the three whole-text distances": [c for c in every if not c.endswith(WHOLE_TEXT)],
    }
    for name, columns in sets.items():
        for seed in (7, 8, 9):
            forest = fit(train, columns, seed)
            figures = []
            for tag, frame in (("web test", test), ("fresh", fresh)):
                missed, p = wrong(forest, frame, columns)
                loss = log_loss(frame.label, np.clip(p, 1e-3, 1 - 1e-3))
                figures.append(f"{tag} wrong {missed.sum()} (log loss {loss:.3f}; "
                               f"{frame[missed].kind.value_counts().to_dict()})")
            left_out = {}
            for kind in sorted(test.kind.unique()):
                rest, held = train[train.kind != kind], test[test.kind == kind]
                left_out[kind] = int(wrong(fit(rest, columns, seed), held, columns)[0].sum())
            print(f"{name}, seed {seed}: " + "; ".join(figures)
                  + f"; left-out kinds wrong {sum(left_out.values())} "
                  + str({k: v for k, v in left_out.items() if v}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
