"""paginated (label 0): pages 1 and 2 of one article: its core split in two where each half
holds 35-65 % of the text, both in the page's own template with a pagination bar, page 2
at a sibling URL and often titled "... - Page 2"; a fifth compare page 1 fetched again
(`variant` dynamic).

One topic, one vocabulary, the same names, length and template, and no shared text: the
hole the other negatives left.
"""
import re

from . import dynamic
from ..builder import cycle, derive, original
from ..core import add_query, esc
from ..htmltext import core_bounds, extract_text, set_title, tokenize

KIND = 'paginated'
LABEL = 0
TARGET = 150

PAGE_TWO = {'en': 'Page 2', 'de': 'Seite 2', 'fr': 'Page 2', 'es': 'P\u00e1gina 2'}
NEXT_PAGE = {'en': 'Next page', 'de': 'N\u00e4chste Seite', 'fr': 'Page suivante', 'es': 'P\u00e1gina siguiente'}
SPLIT_BLOCKS = ('p', 'ul', 'ol', 'blockquote', 'figure', 'table', 'h2', 'h3', 'div', 'section')


def split_in_two(doc, rng):
    """Pages 1 and 2 of the page's article, split in two where each half holds 35-65 %
    of its text, in the page's own template with a pagination bar: two cores on one
    topic, with the same names and words, under one title (page 2's often says so) at
    sibling URLs. None when the core has no such place to split."""
    s = doc.html
    cb = core_bounds(s)
    if not cb:
        return None
    toks = tokenize(s)
    ends = [t[2] for t in toks if t[0] == 'e' and t[3] in SPLIT_BLOCKS and cb[0] < t[1] and t[2] <= cb[1]]
    total = len(extract_text(s, cb[0], cb[1], toks))
    if total < 900:
        return None
    mids = [e for e in ends if 0.35 <= len(extract_text(s, cb[0], e, toks)) / total <= 0.65]
    if not mids:
        return None
    mid = rng.choice(mids)
    lang = doc.lang if doc.lang in PAGE_TWO else 'en'
    style = rng.randrange(4)
    if style == 0:
        url2 = add_query(doc.url, 'page=2')
    elif style == 1:
        url2 = doc.url.rstrip('/') + '/2/'
    elif style == 2:
        url2 = doc.url.rstrip('/') + '/page/2'
    else:
        url2 = re.sub(r'(\.html?)?$', lambda m: '-2' + (m.group(1) or ''), doc.url.rstrip('/'), count=1)
    bar = ('<nav class="pagination"><a href="%s">1</a> <a href="%s">2</a> <a rel="next" href="%s">%s \u203a</a></nav>'
           % (esc(doc.url), esc(url2), esc(url2), NEXT_PAGE[lang]))
    page1 = derive(doc, s[:mid] + '\n' + bar + '\n' + s[cb[1]:], step='page-1')
    html2 = s[:cb[0]] + s[mid:cb[1]] + '\n' + bar + '\n' + s[cb[1]:]
    title2 = doc.title
    if doc.title and rng.random() < 0.6:
        title2 = '%s \u2013 %s' % (doc.title, PAGE_TWO[lang])
        html2 = set_title(html2, title2)
    page2 = derive(doc, html2, url2, title=title2, step='page-2')
    return page1, page2


def build(B, split, pages, want):
    """Pages 1 and 2 of one article (label 0); a fifth of the time page 1 fetched again
    (`dynamic`), so that page 1 is not always byte for byte the template it shares."""
    el = [p for p in pages if p.core_loc is not None and len(p.core_text) >= 900]
    ctx = {'titles': sorted({p.ctitle for p in pages if p.ctitle})}
    it = cycle(el, B.rng(KIND, split, 'order'))
    tries = 0
    while B.count(split, KIND) < want and tries < want * 6 and el:
        tries += 1
        p = next(it)
        r = B.rng(KIND, split, p.id, tries)
        made = split_in_two(original(p), r)
        if made is None:
            B.fail[KIND + ':n/a'] += 1
            continue
        page1, page2 = made
        var = ''
        if r.random() < 0.2:
            again = dynamic.transform(page1, r, ctx)
            if again is not None:
                page1, var = again, 'dynamic'
        B.add_pair(split, KIND, LABEL, page1, page2, var)
