"""unrelated (label 0): two unrelated pages of one split, half of them in the same language
and length band; 30 % use a derived version on one side (`variant`).

The bulk of the negatives: what most pairs a crawler compares look like.
"""
from collections import defaultdict

from ..builder import original

KIND = 'unrelated'
LABEL = 0
TARGET = 780


def build(B, split, pages, want):
    """The split's unrelated pairs."""
    rng = B.rng(split, KIND)
    allp = sorted(pages, key=lambda p: p.id)
    by_lang = defaultdict(list)
    for p in allp:
        by_lang[p.lang].append(p)
    tries = 0
    while B.count(split, KIND) < want and tries < want * 8:
        tries += 1
        a = rng.choice(allp)
        hard = rng.random() < 0.5
        if hard:
            cands = [p for p in by_lang[a.lang] if p.id != a.id and
                     0.6 <= (len(p.core_text) + 1) / (len(a.core_text) + 1) <= 1.6]
            if not cands:
                continue
            b = rng.choice(cands)
        else:
            b = rng.choice(allp)
        if not B.distinct(a, b):
            continue
        da, db = original(a), original(b)
        var = ''
        if rng.random() < 0.3 and B.variants.get(a.id):
            k, da = rng.choice(B.variants[a.id])
            var = k
        B.add_pair(split, KIND, LABEL, da, db, var)
