"""same-template (label 0): the same site template around two different core contents:
page Y against the page made for syndicated (X's core in Y's template), and the print
versions of two pages in the same print template.

Shared boilerplate dominates shingles and simhash: two pages alike in all but their core
must still be told apart.
"""
from collections import defaultdict

from ..builder import original

KIND = 'same-template'
LABEL = 0
TARGET = 250


def template_pair(B, split, y, t, sec):
    """Page Y against t, another core in Y's template (made by syndicated's walk)."""
    B.add_pair(split, KIND, LABEL, original(y), t, sec)


def print_pairs(B, split, pages, want):
    """Print versions of two different pages of the split in the same print template."""
    ids = [p.id for p in pages]
    prints = [(pid, d) for pid in ids for k, d in B.variants.get(pid, []) if k == 'print' and not d.steps[-1].startswith(('small', 'prepend'))]
    rng2 = B.rng(split, 'print-pairs')
    rng2.shuffle(prints)
    by_style = defaultdict(list)
    for pid, d in prints:
        by_style[d.steps[0]].append((pid, d))
    for style in sorted(by_style):
        lst = by_style[style]
        for i in range(0, len(lst) - 1, 2):
            if B.count(split, KIND) >= want:
                break
            (pa, da), (pb, db) = lst[i], lst[i + 1]
            if B.distinct(B.byid[pa], B.byid[pb]):
                B.add_pair(split, KIND, LABEL, da, db, '')
