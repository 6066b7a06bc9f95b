"""same-site (label 0): real pairs of different pages from one site (nytimes, medium,
mozilla, wikipedia, ...), also through their versions on the site's own host (dynamic,
prepend, print, key-facts, ...; `variant` names them).

Two articles in one template on one host: the hard case of the Henzinger evaluation. Only
~20 real same-site page pairs exist in the sources, so these pairs reuse them.
"""
from collections import defaultdict

from ..builder import original

KIND = 'same-site'
LABEL = 0
TARGET = 200
# the kinds whose versions stay on the page's host
SAME_HOST = ('dynamic', 'small-edit', 'prepend', 'print', 'plain-text')


def build(B, split, pages, want):
    """The split's same-site pairs: every real pair of one site first, then their versions."""
    groups = defaultdict(list)
    for p in pages:
        groups[p.group].append(p)
    base_pairs = []
    for g in sorted(groups):
        lst = sorted(groups[g], key=lambda p: p.id)
        for i in range(len(lst)):
            for j in range(i + 1, len(lst)):
                if B.distinct(lst[i], lst[j]):
                    base_pairs.append((lst[i], lst[j]))
    rng = B.rng(split, KIND)
    rng.shuffle(base_pairs)

    def host_docs(p):
        out = [('', original(p))]
        out += [(k, d) for k, d in B.variants.get(p.id, []) if k in SAME_HOST]
        out += [('key-facts', d) for d in B.kf_docs.get(p.id, [])]
        return out
    combos = []
    for a, b in base_pairs:
        cs = []
        for ka, da in host_docs(a):
            for kb, db in host_docs(b):
                fa, fb = ka in ('print', 'plain-text'), kb in ('print', 'plain-text')
                if fa != fb and ka and kb:
                    continue      # a print version against a dynamic version: skip odd mixes
                cs.append((ka, da, kb, db))
        first, rest = cs[0], cs[1:]
        B.rng(split, KIND, a.id, b.id).shuffle(rest)
        combos.append([first] + rest)
    for rnd in range(max([len(c) for c in combos] or [0])):
        for cs in combos:
            if B.count(split, KIND) >= want:
                break
            if rnd < len(cs):
                ka, da, kb, db = cs[rnd]
                var = '+'.join(x for x in sorted({ka, kb}) if x)
                B.add_pair(split, KIND, LABEL, da, db, var)
