"""figures (label 0): the same page with 3-7 numbers of the core changed (counts, prices,
dates, scores) and nothing else: title, headline, names and template kept, at a sibling
URL; sometimes against a duplicate version of the original (`variant`).

Next month's report, another product's sheet: a second kind where only the numbers
decide, so that leaving either numbers kind out still leaves one to learn from.
"""
from . import key_facts
from ..builder import attempts, original
from ..pages import has_located_core

KIND = 'figures'
LABEL = 0
TARGET = 150
eligible = has_located_core


def transform(doc, rng, ctx):
    """Key facts, numbers only: the same page with several figures in the core changed and
    nothing else (title, names, headline kept): next month's report, another product's
    sheet. Teaches that numbers decide where every cue says duplicate."""
    return key_facts.transform(doc, rng, ctx, numbers_only=True)


def build(B, split, pages, want, ctx):
    """The split's figures pairs."""
    el = [p for p in pages if eligible(p)]
    for p, r, _ in attempts(B, split, KIND, el, want):
        base = original(p)
        k = transform(base, r, ctx)
        if k is None:
            B.fail[KIND + ':n/a'] += 1
            continue
        # against a duplicate version of the original as often as not: the transformations
        # that make duplicates must not make the changed figures look alike
        vs = [(kind, d) for kind, d in B.variants.get(p.id, [])
              if kind in ('dynamic', 'small-edit', 'mirror', 'print', 'prepend', 'plain-text')]
        sec = ''
        if vs and r.random() < 0.5:
            sec, base = r.choice(vs)
        if B.add_pair(split, KIND, LABEL, base, k, sec):
            B.derived[p.id] += 1
