"""quote (label 0): another page Y that quotes one paragraph of page X (as a blockquote or
a quotation) compared with X.

Two different documents sharing a long exact passage: what fools measures that look for
shared phrases.
"""
from collections import defaultdict

from . import dynamic
from ..builder import REF_GZ, cycle, derive, original
from ..core import esc
from ..htmltext import core_bounds, tokenize
from ..pages import has_core_fragment

KIND = 'quote'
LABEL = 0
TARGET = 175


def quoting_page(p):
    """A page that can quote another (Y): a located core and enough boilerplate around it,
    no long paragraphs left outside it."""
    return p.core_loc is not None and p.body_text_len - len(p.core_text) >= 150 \
        and p.outside_par <= max(600, 0.3 * len(p.core_text))


def quoting(x, ydoc, rng):
    """Page Y (ydoc) quoting one paragraph of page x in its core."""
    if not x.paras:
        return None
    s = ydoc.html
    cb = core_bounds(s)
    if not cb:
        return None
    par = rng.choice(x.paras)
    if len(x.core_text) < 3 * len(par):
        return None
    toks = tokenize(s)
    pends = [t[2] for t in toks if t[0] == 'e' and t[3] in ('p', 'blockquote', 'ul', 'ol', 'figure')
             and cb[0] < t[1] and t[2] <= cb[1]]
    if pends:
        pos = pends[min(len(pends) - 1, int(len(pends) * rng.uniform(0.2, 0.8)))]
    else:
        pos = cb[0]
    style = rng.randrange(3)
    if style == 0:
        q = '<blockquote><p>%s</p></blockquote>' % esc(par)
    elif style == 1:
        q = '<p>\u201c%s\u201d</p>' % esc(par)
    else:
        q = ('<blockquote class="wp-block-quote"><p>%s</p><cite><a href="%s">%s</a></cite></blockquote>'
             % (esc(par), esc(x.url), esc(x.site)))
    s2 = s[:pos] + '\n' + q + '\n' + s[pos:]
    d = derive(ydoc, s2, ydoc.url, step='quote:%s' % x.id)
    return d


def build(B, split, pages, want, ctx):
    """The split's quote pairs."""
    xs = [p for p in pages if has_core_fragment(p) and p.paras]
    ys = [p for p in pages if quoting_page(p)]
    ys_by_lang = defaultdict(list)
    for y in ys:
        ys_by_lang[y.lang].append(y)
    rng = B.rng(split, KIND, 'order')
    itx = cycle(xs, rng)
    tries = 0
    while B.count(split, KIND) < want and tries < want * 6 and xs and ys:
        tries += 1
        x = next(itx)
        r = B.rng(split, KIND, x.id, tries)
        pool = ys_by_lang.get(x.lang) if len(ys_by_lang.get(x.lang, [])) > 3 and r.random() < 0.85 else ys
        y = r.choice(pool)
        if y.gz > REF_GZ and r.random() > REF_GZ / y.gz:
            y = r.choice(pool)
        if not B.distinct(x, y) or not B.room(y):
            continue
        q = quoting(x, original(y), r)
        if q is None:
            B.fail[KIND + ':n/a'] += 1
            continue
        sec = ''
        if r.random() < 0.12:
            sec = 'dynamic'
            q2 = dynamic.transform(q, r, ctx)
            if q2 is None:
                sec = ''
            else:
                q = q2
        if B.add_pair(split, KIND, LABEL, original(x), q, sec):
            B.derived[y.id] += 1
