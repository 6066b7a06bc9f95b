"""Cues drawn apart from the label: after all pairs are built, every row redraws its
titles and URLs from a stream keyed by its two documents, never by its label, with the
same odds for duplicates and distinct pairs.

Each transformation gives its pairs typical titles and URLs; left like that they predict
the label and a model learns them instead of the content. This runs over every kind, so
it lives beside them rather than in any one.
"""
import html
import re

from .builder import derive
from .core import HOST_WORDS, norm_ws, sibling_url, slugify
from .htmltext import set_title
from .lang import GENERIC_TITLES

# How often each cue is redrawn, the same for duplicates and distinct pairs: about half
# of the pairs of every kind keep the cues their transformation gave them.
TITLE_CUES = {'kept': 0.52, 'same': 0.2, 'generic-both': 0.05, 'generic-one': 0.09, 'other': 0.09, 'none': 0.05}
URL_CUES = {'kept': 0.45, 'sibling': 0.3, 'elsewhere': 0.25}
HOST_ENDINGS = ['com', 'net', 'org', 'de', 'co.uk', 'info', 'news', 'blog', 'fr', 'es', 'io']


def html_title(s):
    m = re.search(r'(?is)<title\b[^>]*>(.*?)</title\s*>', s)
    return norm_ws(html.unescape(m.group(1))) if m else ''


def elsewhere_url(url, title, rng):
    """The page on another host, in another path style."""
    host = '%s%s.%s' % (rng.choice(['www.', '', 'm.', 'news.']), ''.join(rng.sample(HOST_WORDS, 2)),
                        rng.choice(HOST_ENDINGS))
    slug = slugify(title or '', 50) or 'story'
    n = rng.randint(1000, 999999)
    path = rng.choice(['/%d/%02d/%s' % (rng.randint(2010, 2024), rng.randint(1, 12), slug),
                       '/p/%d' % n, '/article/%d.html' % n, '/?p=%d' % n, '/%s-%d' % (slug, n),
                       '/%s/%s/' % (rng.choice(['news', 'blog', 'story', 'read']), slug)])
    return '%s://%s%s' % (rng.choice(['https', 'http']), host, path)


def retitled(doc, title):
    return derive(doc, set_title(doc.html, title), title=title, step='title')


def draw_cues(B, row, titles):
    """Redraws a pair's titles and URLs with a stream that does not know its label, so
    that only the content tells duplicates from distinct pages."""
    docs = list(row['docs'])
    urls = [row['url_a'], row['url_b']]
    rng = B.rng('cues', row['html_a'], row['html_b'])
    t_cue, u_cue = (rng.choices(list(cues), list(cues.values()))[0] for cues in (TITLE_CUES, URL_CUES))
    # the side that changes is the smaller one (size budget), whatever the label
    i = 0 if len(docs[0].html) <= len(docs[1].html) else 1
    other = docs[1 - i]
    lang = other.lang if other.lang in GENERIC_TITLES else 'en'
    generic = rng.choice(GENERIC_TITLES[lang] + [other.page.site or 'Home'])
    if t_cue == 'same':
        docs[i] = retitled(docs[i], html_title(other.html) or other.title or generic)
    elif t_cue == 'generic-both':
        docs = [retitled(d, generic) for d in docs]
    elif t_cue == 'generic-one':
        docs[i] = retitled(docs[i], generic)
    elif t_cue == 'other':
        docs[i] = retitled(docs[i], rng.choice(titles))
    elif t_cue == 'none':
        docs[i] = retitled(docs[i], '')
    if u_cue == 'sibling':
        urls[i] = sibling_url(urls[1 - i], rng)
    elif u_cue == 'elsewhere':
        urls[i] = elsewhere_url(urls[i], html_title(docs[i].html), rng)
    if urls[0] == urls[1] or B.store.name(docs[0]) == B.store.name(docs[1]):
        B.fail['cues-collide'] += 1
        return
    for side, d, u in zip('ab', docs, urls):
        row['url_' + side] = u
        row['html_' + side] = B.store.add(d)
    row['cues'] = 'title=%s;url=%s' % (t_cue, u_cue)
