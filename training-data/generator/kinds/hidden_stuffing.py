"""hidden-stuffing (label 1): a clean page against the same page (or its dynamic,
small-edit or mirror copy) with a large block of repeated keywords (the page's frequent
and title words, the site name, spam words in its language) hidden by CSS (display:none,
off-screen, zero size, same colour as the background, ...), a rule that lives in a new
<style>, the site's own stylesheet, a linked sibling stylesheet, an inline style, the
hidden attribute or a script; on the stuffed page's URL.

Fetched text is 1.3-4.4 times longer while a reader sees the same page: here the
rendered signals must overrule the fetched ones the other way round.
"""
import re
from collections import Counter
from urllib.parse import urlunsplit

from ..builder import cycle, derive, original
from ..core import add_query, crc, esc, slugify, url_parts
from ..htmltext import BASE_RE, Tree, after_core_element, body_open_end, extract_text, tag_attrs, tokenize
from ..lang import ALL_STOP
from ..pages import has_text

KIND = 'hidden-stuffing'
LABEL = 1
TARGET = 150
eligible = has_text

SPAM_WORDS = {
    'en': ['best', 'cheap', 'free', 'online', 'buy', 'deals', 'review', 'download', 'top 10', 'discount',
           'official', 'near me', '2024', 'sale', 'coupon', 'price', 'reviews', 'free shipping'],
    'de': ['günstig', 'kaufen', 'kostenlos', 'beste', 'online', 'Test', 'Angebot', 'Vergleich', 'Rabatt',
           '2024', 'billig', 'Testsieger', 'Preis'],
    'fr': ['pas cher', 'gratuit', 'meilleur', 'en ligne', 'acheter', 'promo', 'avis', '2024', 'soldes', 'prix'],
    'es': ['barato', 'gratis', 'mejor', 'online', 'comprar', 'oferta', 'opiniones', '2024', 'descuento', 'precio'],
    'it': ['economico', 'gratis', 'migliore', 'online', 'comprare', 'offerta', 'recensioni', '2024', 'sconto'],
    'pt': ['barato', 'grátis', 'melhor', 'online', 'comprar', 'oferta', 'avaliações', '2024', 'desconto'],
    'nl': ['goedkoop', 'gratis', 'beste', 'online', 'kopen', 'aanbieding', 'review', '2024', 'korting'],
    'pl': ['tanio', 'za darmo', 'najlepszy', 'online', 'kup', 'promocja', 'opinie', '2024', 'cena'],
}
# class names of the stuffed block
STUFFING_CLASSES = ['kw', 'seo-text', 'tags-extra', 'related-terms', 'hidden-keywords', 'ft-links', 'x-meta',
                    'search-terms', 'sitemap-terms', 'tagline-cloud', 'footer-seo', 'kwd', 'txt-extra']

HIDE_CSS = {
    'display-none': 'display:none',
    'visibility-hidden': 'visibility:hidden;position:absolute;width:1px;height:1px;overflow:hidden',
    'offscreen': 'position:absolute;left:-9999px;top:-9999px;width:800px',
    'text-indent': 'text-indent:-10000px;overflow:hidden;height:1px;white-space:nowrap',
    'font-size-0': 'font-size:0;line-height:0',
    'same-color': 'color:#ffffff;background-color:#ffffff;font-size:2px;line-height:2px',
    'clip': 'position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap',
    'height-0': 'height:0;overflow:hidden',
    'opacity-0': 'opacity:0;position:absolute;pointer-events:none;z-index:-1',
}
# techniques whose rule must also reach the children (site CSS may size or colour p, a, h2, li)
HIDE_DESCENDANTS = {'font-size-0', 'same-color', 'visibility-hidden'}


def hide_rule(cls, tech, rng):
    decl = HIDE_CSS[tech]
    if rng.random() < 0.5:
        decl = ';'.join(d + '!important' if '!important' not in d else d for d in decl.split(';'))
    sel = '.%s,.%s *' % (cls, cls) if tech in HIDE_DESCENDANTS else '.' + cls
    return '%s{%s}' % (sel, decl)


# (technique, where the rule lives), weight
HIDE_METHODS = [(('display-none', 'style'), 4), (('display-none', 'site-css'), 2), (('visibility-hidden', 'style'), 2),
                (('offscreen', 'style'), 2), (('offscreen', 'site-css'), 1), (('text-indent', 'style'), 1),
                (('font-size-0', 'style'), 2), (('same-color', 'style'), 2), (('clip', 'site-css'), 1),
                (('height-0', 'style'), 1), (('opacity-0', 'style'), 1), (('display-none', 'external-css'), 2),
                (('offscreen', 'external-css'), 1), (('font-size-0', 'external-css'), 1),
                (('display-none', 'inline'), 2), (('offscreen', 'inline'), 1), (('same-color', 'inline'), 1),
                (('display-none', 'script'), 2), (('display-none', 'hidden-attr'), 1)]


def stuffing_keywords(p, rng):
    lang = p.lang
    text = p.core_text or extract_text(p.text)
    title = p.ctitle or p.title or ''
    if lang in ('zh', 'ja', 'ko'):
        runs = [r for r in re.findall(r'[^\W\d_]+', title + '\n' + text[:5000]) if len(r) >= 2]
        kws = []
        for _ in range(rng.randint(8, 16)):
            if not runs:
                break
            r = rng.choice(runs)
            a = rng.randrange(max(1, len(r) - 2))
            kws.append(r[a:a + rng.randint(2, 4)])
        kws += rng.sample(SPAM_WORDS['en'], 4)
        return sorted(set(kws), key=kws.index)
    words = re.findall(r"[^\W\d_][\w'\u2019-]{2,}", text[:30000])
    cnt = Counter(w.lower() for w in words if w.lower() not in ALL_STOP and len(w) >= 4)
    top = [w for w, _ in cnt.most_common(40)]
    tw = [w for w in re.findall(r"[^\W\d_][\w'\u2019-]{2,}", title) if w.lower() not in ALL_STOP]
    spam = SPAM_WORDS.get(lang, SPAM_WORDS['en'])
    kws = rng.sample(top, min(len(top), rng.randint(4, 12))) + tw[:6]
    if p.site and len(p.site) < 30:
        kws.append(p.site)
    phrases = []
    for _ in range(rng.randint(3, 10)):
        if kws:
            phrases.append('%s %s' % (rng.choice(spam), rng.choice(kws)) if rng.random() < 0.5
                           else '%s %s' % (rng.choice(kws), rng.choice(spam)))
    out = kws + phrases + rng.sample(spam, min(len(spam), rng.randint(2, 5)))
    return sorted(set(out), key=out.index)


def stuffing_block(p, rng, cls, attr, style=None):
    kws = stuffing_keywords(p, rng)
    if not kws:
        return None
    nwords = len((p.core_text or '').split()) or p.body_text_len // 6
    n = max(250, min(3000, int(nwords * rng.uniform(0.5, 2.0))))
    weights = [1.0 / (1 + i * 0.3) for i in range(len(kws))]
    style = style or rng.choice(['run', 'tags', 'sentences', 'list', 'headings'])
    seq = rng.choices(kws, weights, k=max(20, n // max(1, sum(len(k.split()) for k in kws) // len(kws))))
    open_ = '<div class="%s"%s>' % (cls, attr)
    if style == 'run':
        sep = rng.choice([' ', ', ', ' | ', ' - ', ' \u00b7 '])
        body = esc(sep.join(seq))
    elif style == 'tags':
        body = ' '.join('<a href="/tag/%s">%s</a>' % (slugify(k) if slugify(k).isascii() else 'k%d' % (crc(k) % 99999),
                                                      esc(k)) for k in seq)
    elif style == 'sentences':
        sents = []
        i = 0
        while i < len(seq):
            k = rng.randint(3, 8)
            w = ' '.join(seq[i:i + k])
            sents.append(w[:1].upper() + w[1:] + '.')
            i += k
        paras = [' '.join(sents[j:j + 6]) for j in range(0, len(sents), 6)]
        body = ''.join('<p>%s</p>' % esc(x) for x in paras)
    elif style == 'list':
        open_ = '<ul class="%s"%s>' % (cls, attr)
        body = ''.join('<li>%s</li>' % esc(' '.join(seq[j:j + 3])) for j in range(0, len(seq), 3))
        return open_ + body + '</ul>', style
    else:
        body = ''.join('<h%d>%s</h%d>' % (2 + (j // 4) % 3, esc(' '.join(seq[j:j + 4])), 2 + (j // 4) % 3)
                       for j in range(0, len(seq), 4))
    return open_ + body + '</div>', style


SCRAPER_HOSTS = ['best-reviews-hub.net', 'topnews-feed24.com', 'dailydigest-now.info', 'trend-articles.org',
                 'readmore-zone.net', 'newsflash-today.biz']


def stuffed_url(url, rng):
    sc, host, path, q, fr = url_parts(url)
    st = rng.randrange(4)
    if st == 0:
        return add_query(url, rng.choice(['utm_source=google&utm_medium=organic', 'ref=search', 'src=serp',
                                          'gclid=%x' % rng.getrandbits(48)]))
    if st == 1:
        return urlunsplit((sc, host[4:] if host.startswith('www.') else 'www.' + host, path, q, ''))
    if st == 2:
        return urlunsplit(('https', rng.choice(SCRAPER_HOSTS), '/' + host + path, q, ''))
    if path.endswith('/'):
        return urlunsplit((sc, host, path + 'index.html', q, ''))
    if '.' in path.rsplit('/', 1)[-1]:
        return urlunsplit((sc, host[4:] if host.startswith('www.') else 'www.' + host, path, q, ''))
    return urlunsplit((sc, host, path + '/', q, ''))


def stuff(B, doc, rng):
    """The page with a large block of invisible keywords (CSS, an external stylesheet or a script hides it)."""
    p = doc.page
    s = doc.html
    (tech, where) = rng.choices([m for m, w in HIDE_METHODS], [w for m, w in HIDE_METHODS])[0]
    cls = rng.choice(STUFFING_CLASSES)
    if cls != 'kw' and rng.random() < 0.3:
        cls += '-%x' % rng.getrandbits(12)
    if where == 'external-css' and BASE_RE.search(s):
        where = 'style'           # a <base href> would send the relative stylesheet URL elsewhere
    rule = hide_rule(cls, tech, rng)
    attr = ''
    if where == 'inline':
        attr = ' style="%s"' % HIDE_CSS[tech]
    elif where == 'hidden-attr':
        attr = ' hidden'
    blk = stuffing_block(p, rng, cls, attr, 'run' if (where == 'inline' and tech == 'same-color') else None)
    if blk is None:
        return None, ''
    block, bstyle = blk
    # where the block goes
    pos_kind = rng.choice(['body-start', 'body-end', 'after-core', 'footer'])
    pos = None
    if pos_kind == 'after-core':
        pos = after_core_element(s)
    elif pos_kind == 'footer':
        # a real footer element (not one inside a script template or a comment)
        tree = Tree(s)
        fs = [el for el in tree.els if el.tag == 'footer' and not el.hidden]
        pos = fs[0].ie if fs else None
    # body and head bounds from tokens (a <body> inside an IE conditional comment is no body)
    toks = tokenize(s)
    b_open = [t[2] for t in toks if t[0] == 's' and t[3] == 'body'][:1]
    b_close = [t[1] for t in toks if t[0] == 'e' and t[3] in ('body', 'html')][-1:]
    if pos is None:
        if pos_kind == 'body-start':
            pos = b_open[0] if b_open else body_open_end(s)
        else:
            pos = b_close[0] if b_close else len(s)
    s = s[:pos] + '\n' + block + '\n' + s[pos:]
    hpos = None
    for t in toks:
        if t[1] >= pos:
            break
        if (t[0] == 'e' and t[3] == 'head') or (t[0] == 's' and t[3] == 'body'):
            hpos = t[1]
            break
    if hpos is None:
        hpos = body_open_end(s)
    if where == 'style':
        s = s[:hpos] + '<style>%s</style>\n' % rule + s[hpos:]
    elif where == 'site-css':
        # the rule among the site's own rules: the last style element of the head that applies
        # on screen and is well-formed (no CDATA wrapper, balanced braces and comments), else a new one
        k = None
        noscript = 0
        cur = None
        for t in tokenize(s[:hpos]):
            if t[0] == 's' and t[3] == 'noscript':
                noscript += 1
            elif t[0] == 'e' and t[3] == 'noscript':
                noscript = max(0, noscript - 1)
            elif t[0] == 's' and t[3] == 'style':
                media = tag_attrs(s[t[1]:t[2]]).get('media', 'all').lower()
                cur = [noscript == 0 and ('all' in media or 'screen' in media), '']
            elif t[0] == 'r' and cur is not None:
                cur[1] = s[t[1]:t[2]]
            elif t[0] == 'e' and t[3] == 'style' and cur is not None:
                css = cur[1]
                if cur[0] and 'CDATA' not in css and css.count('{') == css.count('}') \
                        and css.count('/*') == css.count('*/') and css.strip():
                    k = t[1]
                cur = None
        if k is not None:
            s = s[:k] + '\n' + rule + '\n' + s[k:]
        else:
            s = s[:hpos] + '<style type="text/css">\n.clearfix:after{content:"";display:table;clear:both}\n%s\n'\
                '.screen-reader-text{position:absolute;left:-10000px}\n</style>\n' % rule + s[hpos:]
    elif where == 'external-css':
        css = ('/* theme.css */\nbody{margin:0}\n.clearfix:after{content:"";display:table;clear:both}\n'
               '.wrap{max-width:%dpx;margin:0 auto}\n%s\n.btn{display:inline-block;padding:4px 10px}\n'
               % (rng.choice([960, 1080, 1140, 1200]), rule)).encode('utf-8')
        name = B.add_sibling(css, 'css')
        s = s[:hpos] + '<link rel="stylesheet" href="%s%s">\n' % ('./' if rng.random() < 0.5 else '', name[5:]) + s[hpos:]
    elif where == 'script':
        js = ("<script>document.addEventListener('DOMContentLoaded',function(){var e=document.querySelectorAll('.%s');"
              "for(var i=0;i<e.length;i++)e[i].style.display='none';});</script>\n" % cls)
        s = s[:hpos] + js + s[hpos:]
    d = derive(doc, s, url=stuffed_url(doc.url, rng), step='stuffing:%s:%s' % (tech, where))
    d.charset_page = doc.charset_page
    var = '%s+%s' % (tech, where)
    return d, var


def build(B, split, pages, want):
    """The split's hidden-stuffing pairs."""
    el = [p for p in pages if eligible(p)]
    it = cycle(el, B.rng('scripts', split, KIND, 'order'))
    tries = 0
    while B.count(split, KIND) < want and tries < want * 8 and el:
        tries += 1
        p = next(it)
        if not B.script_room(p):
            continue
        r = B.rng('scripts', split, KIND, p.id, tries)
        va, dv = B.page_or_near_copy(p, r)
        if va and r.random() < 0.5:
            da, base = dv, original(p)       # a near-copy against the stuffed page
        else:
            da, base = original(p), dv       # the page against a stuffed (near-)copy
        db, var = stuff(B, base, r)
        if db is None:
            B.fail[KIND + ':n/a'] += 1
            continue
        if va:
            var += '+' + va
        if B.add_pair(split, KIND, LABEL, da, db, var):
            B.script_docs[p.id] += 1
