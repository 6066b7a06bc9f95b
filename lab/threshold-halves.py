#!/usr/bin/env python3
"""How thresholds chosen on one half of a scored split hold on the other half.

A model with a reader judges record pairs by the mean of two probabilities, which no
calibration cells smooth, so the rule that picks its thresholds matters. This compares
the plain rule (the deepest cut whose running precision reaches the target) with the
rule on evidence (one right and one wrong decision counted beyond those seen), as
`crates/twinpage/src/model/decision.rs` implements both (its plain rule, for calibrated
cells, now also keeps the duplicate cut at p 0.85 or more; this script's does not):
thresholds are chosen on one half of the pairs (halves by first document) and applied
to the other, over many random halvings.

    twinpage score --pairs VALID.csv --no-render --model M.json --out mean.csv
    # the same model file without its "reader" entry, for the forest's spread:
    python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m.pop("reader"); json.dump(m, open(sys.argv[2], "w"))' M.json forest.json
    twinpage score --pairs VALID.csv --no-render --model forest.json --out forest.csv
    python3 lab/threshold-halves.py mean.csv forest.csv [--target 0.98] [--halvings 200]
"""
import argparse
import csv
import random


def load(mean_csv, forest_csv):
    rows = []
    with open(mean_csv) as m, open(forest_csv) as f:
        for a, b in zip(csv.DictReader(m), csv.DictReader(f)):
            assert (a["html_a"], a["html_b"]) == (b["html_a"], b["html_b"]), "files differ"
            rows.append(dict(p=float(a["p_duplicate"]), spread=float(b["p_spread"]),
                             label=a["label"] == "1", doc=a["html_a"]))
    return rows


def lowest_precise_cut(ordered, precise):
    best, right = None, 0
    for i, (p, correct) in enumerate(ordered):
        right += correct
        if (i + 1 == len(ordered) or ordered[i + 1][0] != p) and precise(right, i + 1):
            best = p
    return best


def choose(rows, target, unseen, max_spread):
    def precise(right, total):
        return right + unseen >= target * (total + 2 * unseen)
    by_p = sorted((x["p"], x["label"]) for x in rows if x["spread"] <= max_spread)
    duplicate = lowest_precise_cut([(p, l) for p, l in reversed(by_p) if p > 0.5], precise)
    duplicate = 1.0 if duplicate is None else duplicate
    below = [(p, not l) for p, l in by_p if p < min(duplicate, 0.5)]
    distinct = lowest_precise_cut(below, precise)
    return duplicate, 0.0 if distinct is None else distinct


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mean_csv")
    ap.add_argument("forest_csv")
    ap.add_argument("--target", type=float, default=0.98)
    ap.add_argument("--max-spread", type=float, default=0.3)
    ap.add_argument("--halvings", type=int, default=200)
    args = ap.parse_args()
    rows = load(args.mean_csv, args.forest_csv)
    print(f"{len(rows)} pairs, {sum(x['label'] for x in rows)} duplicates, target {args.target}")
    for name, unseen in (("plain", 0.0), ("on evidence", 1.0)):
        dup = dup_right = dis = dis_right = 0
        for seed in range(args.halvings):
            rnd = random.Random(seed)
            side = {}
            for x in rows:
                side.setdefault(x["doc"], rnd.random() < 0.5)
            halves = ([x for x in rows if side[x["doc"]]], [x for x in rows if not side[x["doc"]]])
            for chosen_on, judged in (halves, halves[::-1]):
                hi, lo = choose(chosen_on, args.target, unseen, args.max_spread)
                for x in judged:
                    if x["spread"] > args.max_spread:
                        continue
                    if x["p"] >= hi:
                        dup, dup_right = dup + 1, dup_right + x["label"]
                    elif x["p"] <= lo:
                        dis, dis_right = dis + 1, dis_right + (not x["label"])
        n = len(rows) * args.halvings
        print(f"{name:12} duplicate calls {100 * dup / n:5.1f} % ({dup_right / max(dup, 1):.3f} right)"
              f" | distinct calls {100 * dis / n:5.1f} % ({dis_right / max(dis, 1):.4f} right)"
              f" | review {100 * (n - dup - dis) / n:.1f} %")


if __name__ == "__main__":
    main()
