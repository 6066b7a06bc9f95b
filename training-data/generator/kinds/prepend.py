"""prepend (label 1): a date, title, version, location or breadcrumb/classification path
added at the start or end of the core, nothing else changed, reached by another category
URL.

The Henzinger patent's documents that differ only by such a prefix or suffix.
"""
import re
from urllib.parse import urlunsplit

from ..builder import derive
from ..core import add_query, esc, slugify, url_parts
from ..htmltext import core_bounds
from ..lang import loc, rand_date
from ..pages import has_located_core

KIND = 'prepend'
LABEL = 1
TARGET = 170

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['dynamic', 'mirror', 'small-edit']
FULL_SIZE = True            # its copies count against the page's budget of full-size documents
SITES_FIRST = True          # pages of sites with several pages first (the copy also makes same-site pairs)
eligible = has_located_core


def categories(url, lang, rng):
    sc, host, path, q, fr = url_parts(url)
    segs = [x for x in path.split('/') if x][:-1]
    good = [x for x in segs if re.fullmatch(r'[A-Za-z][A-Za-z_-]{2,18}', x) and not re.search(r'\d', x)]
    pool = loc(lang)['cats'].split()
    cats = [g.replace('-', ' ').replace('_', ' ').title() for g in good[:2]]
    while len(cats) < rng.randint(1, 3):
        c = rng.choice(pool)
        if c not in cats:
            cats.append(c)
    return cats


def transform(doc, rng, ctx):
    cb = core_bounds(doc.html)
    if not cb:
        return None
    s = doc.html
    L = loc(doc.lang)
    sc, host, path, q, fr = url_parts(doc.url)
    cats = categories(doc.url, doc.lang, rng)
    items = []
    kinds = rng.sample(['date', 'title', 'path', 'updated', 'version', 'location'], rng.choice([1, 1, 2, 2, 3]))
    for k in kinds:
        d8, _ = rand_date(rng, doc.lang)
        if k == 'date':
            items.append('<p class="dateline">%s</p>' % esc(L['published'].format(d=d8)))
        elif k == 'title':
            items.append('<h2 class="entry-title">%s</h2>' % esc(doc.page.ctitle or doc.title or doc.page.site))
        elif k == 'path':
            sep = rng.choice([' › ', ' » ', ' / ', ' > '])
            crumbs = [L['home']] + cats
            items.append('<nav class="breadcrumb">%s</nav>' % sep.join(
                '<a href="/%s/">%s</a>' % (slugify(c), esc(c)) if i else '<a href="/">%s</a>' % esc(c)
                for i, c in enumerate(crumbs)))
        elif k == 'updated':
            items.append('<p class="last-modified"><em>%s</em></p>' % esc(L['updated'].format(d=d8)))
        elif k == 'version':
            items.append('<p class="doc-version">%s</p>' % L['version'].format(
                v='%d.%d' % (rng.randint(1, 4), rng.randint(0, 9))))
        else:
            items.append('<p class="doc-location">%s</p>' % esc(L['location'].format(u=doc.url)))
    block = '\n' + '\n'.join(items) + '\n'
    if rng.random() < 0.7:
        s = s[:cb[0]] + block + s[cb[0]:]
        where = 'start'
    else:
        s = s[:cb[1]] + block + s[cb[1]:]
        where = 'end'
    # the same page reached through another classification path of the site
    last = [x for x in path.split('/') if x]
    last = last[-1] if last else slugify(doc.title)
    if rng.random() < 0.75:
        url = urlunsplit((sc, host, '/' + '/'.join(slugify(c) for c in cats) + '/' + last, q, ''))
    else:
        url = add_query(doc.url, 'cat=%s' % slugify(cats[0]))
    if url == doc.url:
        url = add_query(doc.url, 'from=' + slugify(cats[-1]))
    return derive(doc, s, url, step='prepend:%s:%s' % ('+'.join(kinds), where))
