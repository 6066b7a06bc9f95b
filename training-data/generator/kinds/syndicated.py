"""syndicated (label 1): page X's core content inside the template of another site Y (Y's
own core removed), titled "X title | Y site", on Y's host, sometimes with an "originally
appeared on" note or a canonical to X.

Syndication, named by both patents: the same article behind another site's navigation,
ads and title. The same documents against page Y make same-template negatives.
"""
import re
from collections import defaultdict
from urllib.parse import urlunsplit

from . import same_template, second
from ..builder import Doc, cycle, original
from ..core import apply_edits, esc, url_parts, url_slug
from ..htmltext import core_bounds, extract_text, set_title, tag_attrs, tokenize, walk_headings
from ..lang import loc
from ..pages import has_core_fragment, print_body, site_from

KIND = 'syndicated'
LABEL = 1
TARGET = 175
SECONDARY = ['dynamic', 'prepend', 'small-edit']


def template_page(p):
    """A page whose template can take another core (Y): a located core, enough boilerplate
    around it and no long paragraphs left outside it."""
    return p.core_loc is not None and p.body_text_len - len(p.core_text) >= 150 \
        and len(p.core_text) >= 400 and len(p.core_text) >= 0.15 * p.body_text_len \
        and p.outside_par <= max(600, 0.3 * len(p.core_text))


def transplant(x, ydoc, rng):
    """X's core content in Y's template (Y's own core removed)."""
    s = ydoc.html
    cb = core_bounds(s)
    if not cb:
        return None
    body = print_body(x)
    if len(extract_text(body)) < 200:
        return None
    y = ydoc.page
    L = loc(x.lang)
    if rng.random() < 0.5:
        body += '\n<p class="syndication-note"><em>%s</em></p>' % esc(L['orig'].format(s=x.site))
    s = s[:cb[0]] + '\n' + body + '\n' + s[cb[1]:]
    sep = rng.choice([' | ', ' - ', ' \u2013 ', ' :: '])
    new_title = (x.ctitle or x.site) + sep + (y.site or site_from(y.url, y.title))
    s = set_title(s, new_title)
    # headings and meta tags outside the core that carry Y's title now carry X's
    ytitle_words = set(w.lower() for w in re.findall(r'\w{3,}', y.title or ''))
    toks = tokenize(s)
    cb = core_bounds(s)
    edits = []
    for t, st in walk_headings(toks):
        if st is not None:
            if cb and cb[0] <= st[1] <= cb[1]:
                continue
            inner = s[st[2]:t[1]]
            words = set(w.lower() for w in re.findall(r'\w{3,}', extract_text(inner)))
            if ytitle_words and len(words & ytitle_words) >= max(1, 0.5 * len(ytitle_words)):
                edits.append((st[2], t[1], esc(x.ctitle)))
        elif t[0] == 's' and t[3] == 'meta':
            tagtext = s[t[1]:t[2]]
            a = tag_attrs(tagtext)
            key = (a.get('property') or a.get('name') or '').lower()
            if key in ('og:title', 'twitter:title', 'title'):
                new = re.sub(r'(content\s*=\s*)("[^"]*"|\'[^\']*\')', lambda m: m.group(1) + '"%s"' % esc(x.ctitle),
                             tagtext, count=1, flags=re.I)
                edits.append((t[1], t[2], new))
            elif key in ('description', 'og:description', 'twitter:description'):
                new = re.sub(r'(content\s*=\s*)("[^"]*"|\'[^\']*\')',
                             lambda m: m.group(1) + '"%s"' % esc(x.excerpt[:200]), tagtext, count=1, flags=re.I)
                edits.append((t[1], t[2], new))
    s = apply_edits(s, edits)
    sc, yh, ypath, q, fr = url_parts(ydoc.url)
    dirs = [p for p in ypath.split('/') if p][:-1]
    if rng.random() < 0.5 and dirs:
        path = '/' + '/'.join(dirs[:2]) + '/' + url_slug(x.ctitle or x.site, rng)
    else:
        d8 = rng.randint(2014, 2024)
        path = '/%d/%02d/%s' % (d8, rng.randint(1, 12), url_slug(x.ctitle or x.site, rng))
    if rng.random() < 0.25:
        path += '.html'
    url = urlunsplit(('https', yh, path, '', ''))
    canon = url if rng.random() < 0.7 else x.url
    s = re.sub(r'(<link[^>]+rel=["\']?canonical["\']?[^>]*href=["\'])([^"\']*)', lambda m: m.group(1) + esc(canon), s,
               count=1, flags=re.I)
    s = re.sub(r'(<link[^>]+href=["\'])([^"\']*)(["\'][^>]*rel=["\']?canonical)', lambda m: m.group(1) + esc(canon) + m.group(3), s,
               count=1, flags=re.I)
    s = re.sub(r'(<meta[^>]+property=["\']og:url["\'][^>]*content=["\'])([^"\']*)', lambda m: m.group(1) + esc(url), s,
               count=1, flags=re.I)
    d = Doc(x, s, url, new_title, source=x.id, lang=x.lang)
    d.charset_page = y
    d.steps = ['transplant:%s' % y.id]
    return d


class Syndication:
    """The seeded walk over pairs (X, Y) of one split, X's core in Y's template (Y mostly
    in X's language): each document is a syndicated pair (X against it) while the split
    wants them, and a same-template pair (Y against it) while run()'s cap allows. The walk
    goes on where it stopped when run() is called again with a higher cap."""

    def __init__(self, B, split, pages, targets, ctx):
        self.B, self.split, self.ctx = B, split, ctx
        self.want = targets[KIND]
        self.xs = [p for p in pages if has_core_fragment(p)]
        self.ys = [p for p in pages if template_page(p)]
        self.rng = B.rng(split, 'synd', 'order')
        self.itx, self.ity = cycle(self.xs, self.rng), cycle(self.ys, self.rng)
        self.ity_lang = {}
        ys_lang = defaultdict(list)
        for y in self.ys:
            ys_lang[y.lang].append(y)
        for lg in sorted(ys_lang):
            if len(ys_lang[lg]) >= 3:
                self.ity_lang[lg] = cycle(ys_lang[lg], B.rng(split, 'synd', 'order', lg))
        self.tries = 0

    def run(self, st_cap):
        """X's core in Y's template until the syndicated target and st_cap same-template pairs."""
        B, split, rng = self.B, self.split, self.rng
        while (B.count(split, KIND) < self.want or B.count(split, same_template.KIND) < st_cap) \
                and self.tries < 8 * (self.want + st_cap) and self.xs and self.ys:
            self.tries += 1
            x = next(self.itx)
            y = next(self.ity_lang[x.lang]) if x.lang in self.ity_lang and rng.random() < 0.85 else next(self.ity)
            if not B.distinct(x, y) or x.group == y.group or not B.room(y):
                continue
            r = B.rng(split, 'synd', x.id, y.id, self.tries)
            t = transplant(x, original(y), r)
            if t is None:
                B.fail[KIND + ':n/a'] += 1
                continue
            t, sec = second(t, r, self.ctx, SECONDARY)
            B.derived[y.id] += 1
            if B.count(split, KIND) < self.want:
                if B.add_pair(split, KIND, LABEL, original(x), t, sec):
                    B.variants[x.id].append((KIND, t))
            if B.count(split, same_template.KIND) < st_cap:
                same_template.template_pair(B, split, y, t, sec)
