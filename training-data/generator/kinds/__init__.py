"""One module per kind of pair (the `kind` column of the pair files). Each says what its
pairs simulate and why they matter, and holds what is particular to it: KIND, LABEL,
TARGET (its pairs over both splits), its transformation, and how its pairs are drawn
(build(), or for the positives made from one page the attributes pairs.one_page_pairs()
reads). pairs.py runs them in a fixed order.

Kept here: the one-document transformations that other kinds layer on their own as a
second one (the `variant` column), and second(), which draws one.
"""
from . import dynamic, mirror, prepend, small_edit

SECONDARY_RATE = 0.25
TRANSFORMS = {kind.KIND: kind.transform for kind in (mirror, prepend, small_edit, dynamic)}


def second(doc, rng, ctx, choices, rate=SECONDARY_RATE):
    """For a share `rate` of the documents, one of the transformations named in `choices`
    layered on doc: (the new document, its name), else (doc, '') (not drawn, or it does
    not apply)."""
    if rng.random() < rate:
        sec = rng.choice(choices)
        d = TRANSFORMS[sec](doc, rng, ctx)
        if d is not None:
            return d, sec
    return doc, ''
