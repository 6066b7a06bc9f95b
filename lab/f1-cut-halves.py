#!/usr/bin/env python3
"""How a model's F1 cut, chosen on few pairs, holds on others.

`twinpage train` chooses `thresholds.f1_cut` on the calibration pairs: the cut that
theory gives a calibrated p, half the best F1 reachable there (`best_f1_cut` in
crates/twinpage/src/model/decision.rs). This compares it with 0.5, with the rule built
before it (the cut of best F1, kept at 0.5 unless it gains 0.01), with half the best
F1 under the same guard and with half the best F1 kept at 0.5 until the pairs it is chosen
on hold 20 duplicates, choosing each on a sample of one half of a scored split (halves
by first document) and measuring F1 on the other half, over many halvings.

    twinpage score --pairs VALID.csv --no-render --model M.json --out scored.csv
    python3 lab/f1-cut-halves.py scored.csv [--sizes 0 300 150 80] [--halvings 60]

Size 0 chooses on the whole half.
"""
import argparse
import csv
import random


def f1_counts(rows, cut):
    tp = sum(1 for p, y, _ in rows if p >= cut and y)
    fp = sum(1 for p, y, _ in rows if p >= cut and not y)
    fn = sum(1 for p, y, _ in rows if p < cut and y)
    return tp, fp, fn


def f1(counts):
    tp, fp, fn = counts
    return 2 * tp / max(1, 2 * tp + fp + fn)


def best_cut(rows):
    """The cut of best F1 among the pairs' p in (0, 0.5]; of equal F1 the higher."""
    cuts = {p for p, _, _ in rows if 0 < p <= 0.5}
    return max(cuts, key=lambda c: (round(f1(f1_counts(rows, c)), 9), c), default=0.5)


def half_the_best(rows):
    """As `best_f1_cut` in Rust: half the best F1 reachable, at most 0.5; 0.5 without one."""
    best = max((f1(f1_counts(rows, p)) for p, _, _ in rows if p > 0), default=0.0)
    return min(0.5, best / 2) if best > 0 else 0.5


def guarded(rule, gain=0.01):
    """`rule`'s cut only where it gains `gain` of F1 over 0.5 on the pairs it is chosen on."""
    def cut(rows):
        chosen = rule(rows)
        return chosen if f1(f1_counts(rows, chosen)) >= f1(f1_counts(rows, 0.5)) + gain else 0.5
    return cut


def with_floor(rule, duplicates):
    """`rule`'s cut once the pairs hold `duplicates` duplicates; 0.5 before."""
    def cut(rows):
        return rule(rows) if sum(1 for _, y, _ in rows if y) >= duplicates else 0.5
    return cut


RULES = {"0.5": lambda rows: 0.5, "searched": guarded(best_cut),
         "half the best F1": half_the_best, "half, guarded": guarded(half_the_best),
         "half, >= 20 duplicates": with_floor(half_the_best, 20)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scored_csv")
    ap.add_argument("--sizes", type=int, nargs="+", default=[0, 300, 150, 80])
    ap.add_argument("--halvings", type=int, default=60)
    args = ap.parse_args()
    with open(args.scored_csv) as f:
        rows = [(float(r["p_duplicate"]), r["label"] == "1", r["html_a"]) for r in csv.DictReader(f)]
    for size in args.sizes:
        totals = {name: [0, 0, 0] for name in RULES}
        for seed in range(args.halvings):
            rnd = random.Random(seed)
            side = {}
            for _, _, doc in rows:
                side.setdefault(doc, rnd.random() < 0.5)
            chosen_on = [r for r in rows if side[r[2]]]
            judged = [r for r in rows if not side[r[2]]]
            if size:
                chosen_on = rnd.sample(chosen_on, min(size, len(chosen_on)))
            for name, rule in RULES.items():
                counts = f1_counts(judged, rule(chosen_on))
                totals[name] = [a + b for a, b in zip(totals[name], counts)]
        print(f"chosen on {size or 'the half':>8}: "
              + "  ".join(f"{name} {f1(t):.3f}" for name, t in totals.items()))


if __name__ == "__main__":
    main()
