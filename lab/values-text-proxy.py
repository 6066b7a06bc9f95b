#!/usr/bin/env python3
"""Would a record's values without their labels tell duplicates apart better?

A proxy, not twinpage's model. In the renamed layout (`training-data/convert_er.py
--layout renamed`) each field sits on a line `Label: value` under a label drawn per
record, so two pages of one product share their values and few of their labels.
This adds to twinpage's fetched-only signals the character 3-gram tf-idf cosine and the
word Jaccard of the two pages' values alone, and compares scikit-learn's random forest
(200 trees, 0.7 of the signals per split) with and without them, and with the cosine in
place of `record.text_char_cosine`: F1 at p >= 0.5 on the valid split, mean of seeds
7 to 14. Like lab/boosted-trees-proxy.py it has no learned contrast, and that is what
it teaches: built into twinpage the same signal gained nothing (lab/RESULTS.md,
"Values without their labels").

    cargo build --release
    lab/er-benchmark.py --layout renamed --work /tmp/ren --only Structured/Amazon-Google
    for f in /tmp/ren/pages/Structured_Amazon-Google.{train,valid}.csv; do
        target/release/twinpage signals --no-render --pairs "$f" --out "${f%.csv}.signals.csv"
    done
    python3 -m venv /tmp/skv && /tmp/skv/bin/pip install numpy pandas scikit-learn
    /tmp/skv/bin/python lab/values-text-proxy.py /tmp/ren/pages Structured_Amazon-Google
"""

import html
import re
import sys

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import f1_score

SEEDS = range(7, 15)


def values(pages, path):
    """The values of a renamed-layout page, its labels dropped, lower-cased."""
    with open(f"{pages}/{path}", encoding="utf-8") as f:
        page = f.read()
    lines = re.findall(r"<div>[^:<]{1,24}: (.*?)</div>", page, re.S)
    return " ".join(html.unescape(v) for v in lines).lower()


def with_values(pages, frames):
    """Adds the two values signals to each frame (the tf-idf fitted on train pages)."""
    texts = {s: ([values(pages, p) for p in f.html_a], [values(pages, p) for p in f.html_b])
             for s, f in frames.items()}
    tfidf = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3), sublinear_tf=True)
    tfidf.fit(texts["train"][0] + texts["train"][1])
    for split, frame in frames.items():
        a, b = (tfidf.transform(side) for side in texts[split])
        frame["x.values_cosine"] = np.asarray(a.multiply(b).sum(1)).ravel()
        frame["x.values_jaccard"] = [
            len(set(x.split()) & set(y.split())) / max(1, len(set(x.split()) | set(y.split())))
            for x, y in zip(*texts[split])]


def mean_f1(frames, columns):
    train, valid = frames["train"], frames["valid"]
    scores = []
    for seed in SEEDS:
        forest = RandomForestClassifier(200, max_features=0.7, random_state=seed, n_jobs=2)
        forest.fit(train[columns].to_numpy(float), train.label.to_numpy())
        p = forest.predict_proba(valid[columns].to_numpy(float))[:, 1]
        scores.append(f1_score(valid.label.to_numpy(), p >= 0.5))
    return float(np.mean(scores))


def main():
    pages, datasets = sys.argv[1], sys.argv[2:]
    print("| dataset (valid) | signals | with the values' two | the cosine for text_char_cosine |")
    print("|---|---|---|---|")
    for dataset in datasets:
        frames = {s: pd.read_csv(f"{pages}/{dataset}.{s}.signals.csv", low_memory=False)
                  for s in ("train", "valid")}
        signals = [c for c in frames["train"].columns if "." in c and not c.startswith("contrast")]
        with_values(pages, frames)
        base = mean_f1(frames, signals)
        both = mean_f1(frames, signals + ["x.values_cosine", "x.values_jaccard"])
        instead = mean_f1(frames, [c for c in signals if c != "record.text_char_cosine"]
                          + ["x.values_cosine"])
        print(f"| {dataset} | {base:.3f} | {both:.3f} | {instead:.3f} |", flush=True)


if __name__ == "__main__":
    main()
