"""dynamic (label 1): the same page fetched again: other ad blocks, session ids in links,
clocks and timestamps, "N people reading now", random recommendations, changed script
state and cache-busters; a fifth of the pairs compare two such fetches, and the rare
real pages fetched twice are pairs of this kind too (`variant` real-pair).

The Google patent's dynamic content (cookies, session variables, URL rewriting, scripts
and ads): what changes between two fetches of one page is not its content.
"""
import datetime
import html
import re
from urllib.parse import urlsplit

from ..builder import derive, original
from ..core import MARK_E, MARK_S, add_query, apply_edits, esc, url_slug
from ..htmltext import Tree, after_core_element, body_close_start, body_open_end, core_bounds, tokenize
from ..lang import loc, rand_date
from ..pages import has_text

KIND = 'dynamic'
LABEL = 1
TARGET = 172

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['small-edit', 'mirror', 'prepend']
FULL_SIZE = True            # its copies count against the page's budget of full-size documents
SITES_FIRST = True          # pages of sites with several pages first (the copy also makes same-site pairs)
eligible = has_text

WEEKDAYS = {
    'en': 'Monday Tuesday Wednesday Thursday Friday Saturday Sunday'.split(),
    'de': 'Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag'.split(),
    'fr': 'lundi mardi mercredi jeudi vendredi samedi dimanche'.split(),
    'es': 'lunes martes miércoles jueves viernes sábado domingo'.split(),
}
SPONSORS = ['Acme Insurance', 'Velo Bikes', 'Sunny Travel', 'Nordic Furniture', 'CloudHost Pro', 'FreshBox Meals',
            'Brightline Bank', 'Zenith Phones', 'Oak & Iron Tools', 'Lumen Energy', 'Pixel Academy',
            'Harvest Coffee', 'Atlas Car Rental', 'Swift Shoes', 'Tandem Mortgages', 'Orbit Streaming']
AD_LINES = {'en': ['Save up to {p}% this week only', 'Get your free quote in {n} minutes',
                   'New models from ${n}.99', 'Limited offer: {p}% off your first order',
                   'Join {n},000 happy customers today'],
            'de': ['Jetzt bis zu {p}% sparen', 'Kostenloses Angebot in {n} Minuten',
                   'Neue Modelle ab {n},99 €', 'Nur diese Woche: {p}% Rabatt', 'Über {n}.000 zufriedene Kunden'],
            'fr': ['Jusqu\u2019à {p}% de réduction', 'Devis gratuit en {n} minutes', 'Offre limitée : -{p}%'],
            'es': ['Ahorra hasta un {p}%', 'Presupuesto gratis en {n} minutos', 'Oferta limitada: {p}% de descuento']}
AD_RE = re.compile(r'(?:^|[\s_-])(ad|ads|adv|advert|advertisement|adslot|adunit|adsbygoogle|dfp|gpt|'
                   r'sponsor|sponsored|promo|taboola|outbrain|plista|banner)(?:$|[\s_-]|\d)', re.I)


def ad_block(rng, lang):
    L = loc(lang)
    sp = rng.choice(SPONSORS)
    line = rng.choice(AD_LINES.get(lang, AD_LINES['en'])).format(p=rng.randint(10, 70), n=rng.randint(2, 99))
    aid = '%08x' % rng.getrandbits(32)
    return ('<div class="ad-slot" id="ad-%s" data-ad-unit="%d"><span class="ad-label">%s</span>'
            ' <a href="https://ads.%s/click?c=%s" rel="sponsored nofollow"><b>%s</b> &ndash; %s</a></div>'
            % (aid, rng.randint(100000, 999999), L['ad'], rng.choice(['adnet-serve.com', 'clickstream-ads.net',
                                                                    'promo-exchange.io']), aid, esc(sp), esc(line)))


def transform(doc, rng, ctx):
    s = doc.html
    lang = doc.lang
    L = loc(lang)
    host = urlsplit(doc.url).hostname or ''
    bare = host[4:] if host.startswith('www.') else host
    ops = rng.sample(['sid', 'ads', 'clock', 'readers', 'reco', 'state', 'cachebust'], rng.randint(3, 5))
    if not any(o in ops for o in ('ads', 'clock', 'readers', 'reco')):
        ops.append(rng.choice(['ads', 'readers', 'reco']))
    done = []
    url = doc.url
    cb = core_bounds(s)
    if 'sid' in ops:
        pname = rng.choice(['sid', 'sessionid', 'PHPSESSID', 's', 'jsessionid'])
        sid = '%032x' % rng.getrandbits(128) if pname != 's' else '%016x' % rng.getrandbits(64)
        toks = tokenize(s)
        edits = []
        for t in toks:
            if t[0] != 's' or t[3] != 'a':
                continue
            tagtext = s[t[1]:t[2]]
            m = re.search(r'(\shref\s*=\s*)(["\'])([^"\']*)\2', tagtext, re.I)
            if not m:
                continue
            href = m.group(3)
            if not href or href.startswith(('#', 'javascript:', 'mailto:', 'tel:')):
                continue
            if re.match(r'(?i)(https?:)?//', href):
                h = (urlsplit(html.unescape(href) if href.startswith('http') else 'http:' + html.unescape(href)).hostname or '')
                if h.replace('www.', '') != bare:
                    continue
            if pname == 'jsessionid':
                if '?' in href:
                    a, b = href.split('?', 1)
                    nh = '%s;jsessionid=%s?%s' % (a.split('#')[0], sid[:24].upper(), b)
                else:
                    nh = '%s;jsessionid=%s' % (href.split('#')[0], sid[:24].upper())
            else:
                nh = href.split('#')[0] + ('&amp;' if '?' in href else '?') + '%s=%s' % (pname, sid)
            a = t[1] + m.start(3)
            edits.append((a, a + len(href), nh))
        if edits:
            s = apply_edits(s, edits)
            done.append('sid')
            url = add_query(url, '%s=%s' % (pname if pname != 'jsessionid' else 'sid', sid))
    if 'ads' in ops:
        tree = Tree(s)
        cb = core_bounds(s)
        edits = []
        for el in tree.els:
            if len(edits) >= 3 or el.hidden or el.tag in ('html', 'body', 'head', 'script', 'style'):
                continue
            if cb and not (el.e <= cb[0] - len(MARK_S) or el.s >= cb[1] + len(MARK_E)):
                continue
            a = tree.attrs(el)
            if not AD_RE.search(a.get('class', '') + ' ' + a.get('id', '')):
                continue
            if el.ce - el.ie > 20000 or any(e[0] <= el.s < e[1] for e in edits) or any(el.s <= e[0] < el.e for e in edits):
                continue
            edits.append((el.ie, el.ce, ad_block(rng, lang)))
        s = apply_edits(s, edits)
        k = body_open_end(s)
        s = s[:k] + '\n' + ad_block(rng, lang) + '\n' + s[k:]
        k = body_close_start(s)
        s = s[:k] + ad_block(rng, lang) + '\n' + s[k:]
        done.append('ads:%d' % len(edits))
    if 'clock' in ops:
        d8, ymd = rand_date(rng, lang, 2023, 2025)
        wd = WEEKDAYS.get(lang, WEEKDAYS['en'])[datetime.date(*ymd).weekday()]
        tm = '%02d:%02d' % (rng.randint(0, 23), rng.randint(0, 59))
        k = body_open_end(s)
        s = s[:k] + '\n<div class="site-clock" data-ts="%d">%s, %s %s</div>\n' % (
            rng.randint(1600000000, 1760000000), wd, d8, tm) + s[k:]
        done.append('clock')
    if 'readers' in ops:
        w = '<div class="live-readers"><span class="dot"></span> %s</div>' % esc(
            L['reading'].format(n=rng.randint(12, 4800)))
        pos = after_core_element(s) if rng.random() < 0.5 else None
        pos = pos or body_open_end(s)
        s = s[:pos] + '\n' + w + '\n' + s[pos:]
        done.append('readers')
    if 'reco' in ops:
        titles = ctx['titles']
        picks = rng.sample(titles, min(len(titles), rng.randint(3, 6)))
        items = ''.join('<li><a href="https://%s/%s?ref=reco">%s</a></li>' % (host or 'example.org', url_slug(t, rng), esc(t))
                        for t in picks if t)
        w = '<aside class="recommended"><h3>%s</h3><ul>%s</ul></aside>' % (L['reco'], items)
        pos = after_core_element(s) if rng.random() < 0.6 else None
        pos = pos or body_close_start(s)
        s = s[:pos] + '\n' + w + '\n' + s[pos:]
        done.append('reco')
    if 'state' in ops:
        js = ('<script>window.__PAGE_STATE__={"requestId":"%s","renderedAt":%d,"abBucket":%d,'
              '"visitor":{"returning":%s}};</script>' % ('%024x' % rng.getrandbits(96), rng.randint(1600000000000, 1760000000000),
                                                        rng.randint(0, 9), rng.choice(['true', 'false'])))
        k = body_close_start(s)
        s = s[:k] + js + '\n' + s[k:]
        done.append('state')
    if 'cachebust' in ops:
        s2 = re.sub(r'([?&](?:v|ver|version|_|cb|t|ts|rev)=)(\d{3,})',
                    lambda m: m.group(1) + ''.join(str(rng.randrange(10)) for _ in m.group(2)), s)
        if s2 != s:
            s = s2
            done.append('cachebust')
    if url == doc.url:
        url = add_query(url, rng.choice(['utm_source=twitter&utm_medium=social', 'ref=homepage',
                                         'utm_campaign=daily&utm_source=newsletter', 'src=rss', 'fbclid=%x' % rng.getrandbits(64)]))
    if s == doc.html:
        return None
    return derive(doc, s, url, step='dynamic:' + '+'.join(done))


def other_side(B, split, base, tries, r, ctx):
    """The page's side of the pair: the page as served, or for a fifth of the pairs another
    fetch of it (from its own stream)."""
    if r.random() < 0.2:
        o2 = transform(base, B.rng(split, KIND, base.page.id, tries, 'other'), ctx)
        if o2 is not None:
            return o2
    return base


def real_pairs(B, split):
    """Real near-duplicate source pages (rare): two fetches of one page."""
    for a_id, b_id in sorted(B.real_dups):
        if a_id in B.byid and b_id in B.byid and B.split_of.get(a_id) == split:
            da, db = original(B.byid[a_id]), original(B.byid[b_id])
            if da.url == db.url:   # the same page fetched twice (e.g. before/after comments loaded)
                db.url = add_query(db.url, 'utm_source=feed')
            B.add_pair(split, KIND, LABEL, da, db, 'real-pair')
