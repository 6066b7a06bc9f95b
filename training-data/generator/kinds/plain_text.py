"""plain-text (label 1): a text-only version of the core (<pre>-wrapped text, bare <p>s or
<br>s) on a text./lite. host, at ?format=text or a .txt path.

The plain text vs HTML formats of one document that the Henzinger patent names.
"""
import textwrap
from urllib.parse import urlunsplit

from ..builder import Doc
from ..core import MARK_E, MARK_S, add_query, esc, url_parts
from ..lang import loc
from ..pages import has_core_fragment

KIND = 'plain-text'
LABEL = 1
TARGET = 170

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['small-edit', 'prepend']
FULL_SIZE = False           # small: only the core's text
SITES_FIRST = True          # pages of sites with several pages first (text versions also make same-site pairs)
eligible = has_core_fragment


def transform(doc, rng, ctx):
    page = doc.page
    text = page.core_text
    if len(text) < 200:
        return None
    L = loc(doc.lang)
    sc, host, path, q, fr = url_parts(page.url)
    u = rng.randrange(5)
    bare = host[4:] if host.startswith('www.') else host
    if u == 0:
        url = urlunsplit((sc, 'text.' + bare, path, q, ''))
    elif u == 1:
        url = urlunsplit((sc, 'lite.' + bare, path, q, ''))
    elif u == 2:
        url = add_query(page.url, rng.choice(['format=text', 'output=txt', 'view=text', 'plain=1']))
    elif u == 3:
        url = urlunsplit((sc, host, '/text' + path, q, ''))
    else:
        url = urlunsplit((sc, host, (path.rstrip('/') or '/index') + '.txt', q, ''))
    title = page.ctitle or page.site
    paras = [p for p in text.split('\n') if p.strip()]
    style = rng.randrange(3)
    if style == 0:
        wrapped = '\n\n'.join(textwrap.fill(p, 76) for p in paras)
        head = title + '\n' + '=' * min(76, max(3, len(title))) + '\n\n' if rng.random() < 0.7 else ''
        body = '<pre>%s%s%s%s</pre>' % (MARK_S, esc(head), esc(wrapped), MARK_E)
    elif style == 1:
        body = '<h1>%s</h1>\n%s%s%s' % (esc(title), MARK_S,
                                         '\n'.join('<p>%s</p>' % esc(p) for p in paras), MARK_E)
    else:
        body = '%s%s%s' % (MARK_S, '<br><br>\n'.join(esc(p) for p in paras), MARK_E)
    out = ('<html><head><meta charset="utf-8"><title>%s</title></head>\n<body>\n'
           '<p><small>%s &middot; <a href="%s">%s</a></small></p>\n%s\n</body></html>\n'
           % (esc(title), L['textonly'], esc(page.url), L['full'], body))
    d = Doc(page, out, url, title, source=doc.source, lang=doc.lang)
    d.steps = doc.steps + ['plain:%d' % style]
    return d
