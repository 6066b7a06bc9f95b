"""The real pages: reading Mozilla Readability's test pages and the trafilatura evaluation
pages as served, locating their core content (what people marked), their URL, title, site
and language; which pages each kind can use; near-duplicate sources; and the split of the
pages, whole sites together, into train and test.

Every pair is built from these pages, so reading them is shared by all kinds; a page is
read once and never changed (its bytes are the real side of many pairs).
"""
import csv
import html
import json
import os
import re
import unicodedata
import zlib
from bisect import bisect_right
from collections import Counter, defaultdict
from urllib.parse import urlsplit

from .core import MARK_E, MARK_S, crc, effective_url, hrng, norm_ws, regdom, site_key, slugify, url_slug
from .htmltext import BLOCK, Tree, clean_fragment, detect_charset, extract_text
from .lang import detect_lang

MAX_SOURCE_BYTES = 600_000
N_TRAFILATURA = 300           # seeded subset of the trafilatura pages (size budget)
TRAF_MAX_GZ = 20_000          # ... among pages whose gzip size is at most this


class Page:
    """A real page as served (raw bytes, decoded text) and what was learnt about it."""

    def __init__(self):
        self.id = ''
        self.coll = ''
        self.raw = b''
        self.codec = 'utf-8'
        self.declared = None
        self.charset_how = ''
        self.text = ''
        self.url = ''
        self.title = ''
        self.site = ''
        self.lang = 'und'
        self.core_loc = None          # (inner start, inner end) in text, or None
        self.core_html = ''           # core content HTML (readability: expected.html)
        self.core_text = ''
        self.body_text_len = 0
        self.paras = []
        self.group = ''
        self.gz = 0
        self.excerpt = ''
        self.byline = ''
        self.ctitle = ''
        self.outside_par = 0

    def marked(self):
        s = self.text
        if self.core_loc:
            a, b = self.core_loc
            return s[:a] + MARK_S + s[a:b] + MARK_E + s[b:]
        return s


COMMON_HOSTS = {'twitter.com', 'facebook.com', 'google.com', 'youtube.com', 'instagram.com', 'linkedin.com',
                'pinterest.com', 'reddit.com', 'github.com', 'wikipedia.org', 'apple.com', 'amazon.com',
                'doubleclick.net', 'googleapis.com', 'gstatic.com', 't.co', 'bit.ly', 'creativecommons.org',
                'wordpress.org', 'w3.org', 'feedburner.com', 'addthis.com', 'disqus.com', 'cloudflare.com'}


def main_link_host(tree, name=''):
    """The page's own host, guessed from its links: a linked host named like the test folder,
    else the host most links point to."""
    c = Counter()
    for el in tree.find_all('a'):
        h = tree.attrs(el).get('href', '')
        m = re.match(r'(?i)https?://([^/?#:]+)', h)
        if m:
            host = m.group(1).lower()
            if regdom(host) not in COMMON_HOSTS:
                c[host] += 1
    if not c:
        return ''
    ranked = sorted(c.items(), key=lambda x: (-x[1], x[0]))
    key = re.sub(r'-\d+$', '', name).split('-')[0].lower()
    for host, n in ranked:
        if len(key) >= 3 and key in regdom(host).split('.')[0]:
            return host
    host, n = ranked[0]
    return host if n >= 3 else ''


def find_meta(tree, *names):
    for el in tree.find_all('meta'):
        a = tree.attrs(el)
        key = (a.get('property') or a.get('name') or a.get('itemprop') or '').lower()
        if key in names and a.get('content', '').strip():
            return a['content'].strip()
    return ''


def find_canonical(tree):
    for el in tree.find_all('link'):
        a = tree.attrs(el)
        if 'canonical' in a.get('rel', '').lower().split() and re.match(r'https?://', a.get('href', '')):
            return a['href'].strip()
    u = find_meta(tree, 'og:url')
    if re.match(r'https?://[^/\s]+', u):
        return u
    return ''


def page_title(tree):
    for el in tree.find_all('title'):
        t = norm_ws(html.unescape(tree.s[el.ie:el.ce]))
        if t:
            return t
    t = find_meta(tree, 'og:title', 'twitter:title')
    if t:
        return norm_ws(t)
    for el in tree.find_all('h1'):
        t = norm_ws(extract_text(tree.s, el.ie, el.ce, tree.toks))
        if t:
            return t
    return ''


def match_norm(t):
    """Text reduced to lower-case letters and digits (robust snippet matching)."""
    return re.sub(r'[\W_]+', '', unicodedata.normalize('NFKC', t)).lower()


def locate_core(tree, snippets, negatives=(), climb=False):
    """The element containing most snippets (fewest boilerplate snippets, then smallest)."""
    s = tree.s
    texts = tree.texts
    vis = [not el.hidden and el.tag not in ('title',) for (_, _, el) in texts]
    parts, offs = [], []
    pos = 0
    for i, (a, b, el) in enumerate(texts):
        t = match_norm(html.unescape(s[a:b])) if vis[i] else ''
        offs.append(pos)
        parts.append(t)
        pos += len(t)
    full = ''.join(parts)

    def occurrences(snip):
        q = match_norm(snip)
        out = []
        if len(q) < 4:
            return out
        k = full.find(q)
        while k >= 0 and len(out) < 20:
            i = bisect_right(offs, k) - 1
            j = bisect_right(offs, k + len(q) - 1) - 1
            out.append((i, j))
            k = full.find(q, k + 1)
        return out

    pos_occ = [occurrences(x) for x in snippets]
    neg_occ = [occurrences(x) for x in negatives]
    found = sum(1 for o in pos_occ if o)
    if found == 0:
        return None, 0, 0
    best, bkey = None, None
    for el in tree.els:
        if el.hidden or el.tag in ('html', 'head', 'body', 'title') or el.t1 <= el.t0:
            continue
        w = sum(1 for occ in pos_occ if any(el.t0 <= i and j < el.t1 for i, j in occ))
        if w == 0:
            continue
        o = sum(1 for occ in neg_occ if any(el.t0 <= i and j < el.t1 for i, j in occ))
        size = offs[el.t1 - 1] + len(parts[el.t1 - 1]) - offs[el.t0] if el.t1 > el.t0 else 0
        key = (w - o, -size)
        if bkey is None or key > bkey:
            best, bkey = el, key
    if best is None:
        return None, found, 0
    w = bkey[0]
    if climb:
        best = climb_core(tree, best, neg_occ, vis)
    return best, found, w


def climb_core(tree, el, neg_occ, vis):
    """From the element holding the snippets to the article container: among its ancestors
    (below body) take the one with most paragraph text, penalising link text, short text
    (menus, labels) and boilerplate snippets."""
    s = tree.s
    n = len(tree.texts)
    lens, in_a, block = [], [], []
    for i, (a, b, e) in enumerate(tree.texts):
        ln = len(norm_ws(html.unescape(s[a:b]))) if vis[i] else 0
        x, link, blk = e, False, None
        while x is not None:
            if x.tag == 'a':
                link = True
            if blk is None and x.tag in BLOCK and x.tag not in ('br', 'img'):
                blk = x
            x = x.parent
        lens.append(ln)
        in_a.append(link)
        block.append(id(blk))
    blen = Counter()
    for i in range(n):
        if not in_a[i]:
            blen[block[i]] += lens[i]
    P = [0] * (n + 1)
    L = [0] * (n + 1)
    S = [0] * (n + 1)
    for i in range(n):
        P[i + 1] = P[i] + (lens[i] if not in_a[i] and blen[block[i]] >= 60 else 0)
        L[i + 1] = L[i] + (lens[i] if in_a[i] else 0)
        S[i + 1] = S[i] + (lens[i] if not in_a[i] and blen[block[i]] < 60 else 0)

    def score(x):
        o = sum(1 for occ in neg_occ if any(x.t0 <= i and j < x.t1 for i, j in occ))
        return (P[x.t1] - P[x.t0]) - 1.0 * (L[x.t1] - L[x.t0]) - 0.5 * (S[x.t1] - S[x.t0]) - 400 * o
    best, bs = el, score(el)
    x = el.parent
    while x is not None and x.tag not in ('body', 'html', '#root'):
        sc = score(x)
        if sc > bs:
            best, bs = x, sc
        x = x.parent
    return best


def decode_page(raw):
    codec, declared, how = detect_charset(raw)
    text = raw.decode(codec, errors='replace')
    return text, codec, declared, how


def clean_title(title, site, url):
    """The page title without the site name part ("Article | Site" -> "Article")."""
    label = regdom(urlsplit(effective_url(url)).hostname or '').split('.')[0].lower()
    keys = {k for k in (norm_ws(site).lower(), label) if k and len(k) >= 3}
    title = title or ''
    for k in sorted(keys, key=len, reverse=True):
        t2 = re.sub(r'\s*(?:\||-|–|—|::|:|·|»)\s*' + re.escape(k) + r'\s*$', '', title, flags=re.I)
        if len(t2) >= 8:
            title = t2
    parts = re.split(r'\s+(?:\||-|–|—|::|·|»)\s+', title)
    if len(parts) < 2:
        return title.strip()

    def is_site(part):
        pl = part.lower()
        pc = re.sub(r'[^\w]', '', pl)
        return any(k in pl or re.sub(r'[^\w]', '', k) in pc for k in keys)
    for i in range(1, len(parts)):
        if is_site(parts[i]):
            return ' | '.join(parts[:i]).strip() if i > 1 else parts[0].strip()
    if is_site(parts[0]) and len(parts) == 2:
        return parts[1].strip()
    return (title or '').strip()


def finish_page(p, tree, core_el):
    s = p.text
    p.ctitle = clean_title(p.title, p.site, p.url) or p.title
    body_text = extract_text(s, 0, len(s), tree.toks)
    p.body_text_len = len(body_text)
    if core_el is not None:
        p.core_loc = (core_el.ie, core_el.ce)
    if not p.core_text and p.core_loc:
        p.core_text = extract_text(s, p.core_loc[0], p.core_loc[1], tree.toks)
    # long paragraphs outside the core: a sign the core was located only in part
    if p.core_loc:
        outside = extract_text(s, 0, p.core_loc[0], tree.toks) + '\n' + extract_text(s, p.core_loc[1], len(s), tree.toks)
        p.outside_par = sum(len(l) for l in outside.split('\n') if len(l) >= 150)
    # paragraphs usable for quoting
    paras = [l for l in p.core_text.split('\n') if 120 <= len(l) <= 700]
    p.paras = paras
    p.excerpt = p.excerpt or (p.core_text[:200].rsplit(' ', 1)[0] if p.core_text else '')
    p.lang = detect_lang(p.lang, p.core_text or body_text)
    p.gz = len(zlib.compress(p.raw, 9))


def load_readability(root, log):
    pages = []
    base = os.path.join(root, 'readability')
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        src = os.path.join(d, 'source.html')
        if not os.path.isfile(src):
            continue
        raw = open(src, 'rb').read()
        if len(raw) > MAX_SOURCE_BYTES:
            log['skipped_big'].append('readability/%s (%d KB)' % (name, len(raw) // 1024))
            continue
        exp = open(os.path.join(d, 'expected.html'), 'rb').read().decode('utf-8', 'replace')
        meta = json.load(open(os.path.join(d, 'expected-metadata.json'), encoding='utf-8'))
        p = Page()
        p.id, p.coll, p.raw = 'readability/' + name, 'readability', raw
        p.text, p.codec, p.declared, p.charset_how = decode_page(raw)
        exp_text = extract_text(exp)
        if re.search(r'lorem ipsum|consetetur sadipscing|tempor incididunt', exp_text, re.I) or len(raw) < 4000:
            log['skipped_synthetic'].append(p.id)
            continue
        if len(exp_text) < 400:
            log['skipped_notext'].append('%s (%d chars of core text)' % (p.id, len(exp_text)))
            continue
        tree = Tree(p.text)
        p.title = norm_ws(meta.get('title') or '') or page_title(tree)
        p.byline = norm_ws(meta.get('byline') or '')
        p.excerpt = norm_ws(meta.get('excerpt') or '')
        p.site = norm_ws(meta.get('siteName') or '') or find_meta(tree, 'og:site_name')
        p.lang = meta.get('lang') or ''
        if not p.lang:
            htm = tree.find_all('html')
            p.lang = tree.attrs(htm[0]).get('lang', '') if htm else ''
        url = find_canonical(tree)
        if not url:
            host = main_link_host(tree, name)
            if not host:
                sitebase = re.sub(r'-\d+$', '', name)
                sitebase = re.sub(r'-(org|com|net)$', r'.\1', sitebase)
                host = 'www.' + (sitebase if '.' in sitebase else re.sub(r'[^a-z0-9]', '', sitebase.lower()) + '.com')
            title0 = norm_ws(meta.get('title') or '') or name
            url = 'https://%s/%s' % (host, url_slug(clean_title(title0, p.site, 'https://' + host), hrng('url', p.id)))
        p.url = url
        if not p.site:
            p.site = site_from(p.url, p.title)
        # core content: curated by people
        m = re.search(r'<div id="readability-page-1"[^>]*>(.*)</div>\s*$', exp, re.S)
        p.core_html = m.group(1) if m else exp
        p.core_text = exp_text
        blocks = [l for l in exp_text.split('\n') if len(l) >= 40]
        if len(blocks) > 14:
            step = len(blocks) / 14.0
            blocks = [blocks[int(i * step)] for i in range(14)]
        snippets = [b[:70] for b in blocks]
        core_el, _, w = locate_core(tree, snippets)
        if core_el is None or w < max(1, len(snippets) // 2):
            core_el = None        # not located in the source
        elif len(extract_text(p.text, core_el.ie, core_el.ce, tree.toks)) < 0.6 * len(exp_text):
            core_el = None        # located, but covers only part of expected.html
        finish_page(p, tree, core_el)
        p.group = site_key(p.url)
        pages.append(p)
    return pages


def site_from(url, title):
    m = re.split(r'\s+[|\-–—:·»]\s+', title or '')
    if len(m) >= 2 and 2 <= len(m[-1]) <= 40:
        return m[-1].strip()
    host = (urlsplit(url).hostname or 'site').lower()
    rd = regdom(host).split('.')[0]
    return rd.capitalize()


def used_sources(folder):
    """The source pages (`source_a`, `source_b`) of the pair files in `folder`."""
    used = set()
    for name in ('train.csv', 'test.csv'):
        with open(os.path.join(folder, name), encoding='utf-8', newline='') as f:
            for row in csv.DictReader(f):
                used.update((row['source_a'], row['source_b']))
    return used


def load_trafilatura(root, log):
    base = os.path.join(root, 'trafilatura-eval')
    ev = json.load(open(os.path.join(base, 'evaldata.json'), encoding='utf-8'))
    entries = []
    seen = set()
    for url, v in ev.items():
        f = v['file']
        path = os.path.join(base, 'eval', f)
        if f in seen:
            continue
        seen.add(f)
        if not os.path.isfile(path):
            log['missing_files'] += 1
            continue
        entries.append((f, url, v))
    on_disk = set(os.listdir(os.path.join(base, 'eval')))
    log['unlabelled_files'] = len(on_disk - seen)
    entries.sort()
    return entries


def build_traf_page(base, f, url, v, log):
    path = os.path.join(base, 'eval', f)
    raw = open(path, 'rb').read()
    p = Page()
    p.id, p.coll, p.raw = 'trafilatura/' + f, 'trafilatura', raw
    p.text, p.codec, p.declared, p.charset_how = decode_page(raw)
    tree = Tree(p.text)
    p.title = page_title(tree)
    p.site = find_meta(tree, 'og:site_name')
    htm = tree.find_all('html')
    p.lang = tree.attrs(htm[0]).get('lang', '') if htm else ''
    if not re.match(r'https?://', url):
        canon = find_canonical(tree)
        if canon:
            url = canon
        else:
            name = f[:-5] if f.endswith('.html') else f
            if '-' in name.split('.', 1)[-1] and re.match(r'^[\w.-]+\.[a-z]{2,}-', name):
                host, slug = re.match(r'^([\w.-]+?\.[a-z]{2,}(?:\.[a-z]{2})?)-(.*)$', name).groups()
            else:
                parts = name.split('.')
                k = 3 if len(parts) > 3 and parts[1] in ('com', 'co', 'org', 'gob') else 2
                host, slug = '.'.join(parts[:k]), '-'.join(parts[k:])
            url = 'https://www.%s/%s' % (host.lower(), slugify(slug or p.title or 'article'))
    p.url = url
    p.site = p.site or site_from(url, p.title)
    core_el = locate_core(tree, v.get('with') or [], v.get('without') or [], climb=True)[0]
    finish_page(p, tree, core_el)
    if core_el is not None:
        # a "core" that is nearly the whole page is no core
        if len(p.core_text) > 0.985 * max(1, p.body_text_len) or len(p.core_text) < 150:
            p.core_loc = None
    if p.core_loc:
        s = p.text
        p.core_html = s[p.core_loc[0]:p.core_loc[1]]
    else:
        p.core_text = ''
    p.group = site_key(p.url)
    return p


def load_pages(source, seed, max_gzip, fresh_beside, log, say):
    """The pages used, sorted by id: the usable Readability pages and a seeded subset of the
    trafilatura pages (at most max_gzip bytes of gzip each); with fresh_beside, none of the
    pages the pair files in that folder use, nor any page of their sites."""
    say('loading readability pages ...')
    pages = load_readability(source, log)
    say('  %d readability pages' % len(pages))
    entries = load_trafilatura(source, log)
    base = os.path.join(source, 'trafilatura-eval')
    if fresh_beside is not None:
        used = used_sources(fresh_beside)
        used_sites = {p.group for p in pages if p.id in used}
        used_sites |= {site_key(url) for f, url, v in entries if 'trafilatura/' + f in used}
        pages = [p for p in pages if p.id not in used and p.group not in used_sites]
        entries = [(f, url, v) for f, url, v in entries
                   if 'trafilatura/' + f not in used and site_key(url) not in used_sites]
        say('  fresh: %d pages of %d sites left out; %d readability, %d trafilatura pages left'
            % (len(used), len(used_sites), len(pages), len(entries)))
    cands = []
    for f, url, v in entries:
        size = os.path.getsize(os.path.join(base, 'eval', f))
        if size > MAX_SOURCE_BYTES:
            log['skipped_big'].append('trafilatura/%s (%d KB)' % (f, size // 1024))
            continue
        cands.append((f, url, v))
    r = hrng(seed, 'traf-subset')
    r.shuffle(cands)
    say('loading trafilatura pages (seeded subset of %d) ...' % len(cands))
    traf = []
    for f, url, v in cands:
        if len(traf) >= N_TRAFILATURA:
            break
        raw = open(os.path.join(base, 'eval', f), 'rb').read()
        if len(zlib.compress(raw, 6)) > max_gzip:
            continue
        p = build_traf_page(base, f, url, v, log)
        txt = p.core_text or extract_text(p.text)
        if len(txt) < 200:
            log['skipped_notext'].append('%s (%d chars)' % (p.id, len(txt)))
            continue
        traf.append(p)
    pages += traf
    pages.sort(key=lambda p: p.id)
    say('  %d trafilatura pages' % len(traf))
    return pages


# ----------------------------------------------------------------------------------------
# what each kind can use

def has_text(p):
    """Enough text for a pair whose transformation needs no located core."""
    return len(p.core_text) >= 200 or p.body_text_len >= 300


def has_core_fragment(p):
    """A core that stands alone as an article (print_body gives it as clean HTML)."""
    return len(p.core_text) >= 300 and (p.coll == 'readability' or p.core_loc is not None)


def has_located_core(p):
    """A core located in the page itself, long enough to be edited in place."""
    return p.core_loc is not None and len(p.core_text) >= 300


def print_body(page):
    """The page's core content as clean HTML ('' when it has none): the body of its print
    version, and the article that syndication and client-side apps carry."""
    if page.coll == 'readability' or page.core_loc:
        return clean_fragment(page.core_html, page.url)
    return ''


# ----------------------------------------------------------------------------------------
# near-duplicate sources (some pages exist twice) and the split

def shingles(text):
    words = re.findall(r'\w+', text.lower())
    if len(words) < 40:
        t = re.sub(r'\s+', '', text)
        return {crc(t[i:i + 6]) for i in range(0, max(0, len(t) - 5))}
    return {crc(' '.join(words[i:i + 5])) for i in range(len(words) - 4)}


class UF:
    def __init__(self):
        self.p = {}

    def find(self, x):
        self.p.setdefault(x, x)
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if rb < ra:
                ra, rb = rb, ra
            self.p[rb] = ra


def near_dup_pairs(pages):
    sh = {}
    for p in pages:
        txt = p.core_text or extract_text(p.text)
        sh[p.id] = shingles(txt)
    inv = defaultdict(list)
    for pid in sorted(sh):
        for h in sh[pid]:
            inv[h].append(pid)
    co = Counter()
    for h, lst in inv.items():
        if 2 <= len(lst) <= 25:
            for i in range(len(lst)):
                for j in range(i + 1, len(lst)):
                    co[(lst[i], lst[j])] += 1
    out = []
    for (a, b), c in sorted(co.items()):
        j = c / max(1, len(sh[a]) + len(sh[b]) - c)
        if j >= 0.3:
            out.append((a, b, round(j, 3)))
    return out


def split_by_site(pages, dups, seed):
    """Page id -> 'train' or 'test': pages grouped by site and by near-duplicate core text,
    each group to test (~20 %) or train with the seed, stratified by collection and by
    single/multi-page groups."""
    uf = UF()
    for p in pages:
        uf.union('g:' + p.group, 'p:' + p.id)
    for a, b, j in dups:
        uf.union('p:' + a, 'p:' + b)
    comp = defaultdict(list)
    for p in pages:
        comp[uf.find('p:' + p.id)].append(p)
    # stratified by collection and by single/multi-page groups
    strata = defaultdict(list)
    for key in sorted(comp):
        g = comp[key]
        strata[(g[0].coll, len(g) > 1)].append(key)
    split_of = {}
    for st in sorted(strata):
        keys = strata[st]
        rr = hrng(seed, 'split', st[0], st[1])
        rr.shuffle(keys)
        total = sum(len(comp[k]) for k in keys)
        ntest = 0
        for k in keys:
            sp = 'test' if ntest + len(comp[k]) / 2 <= 0.2 * total and (ntest < 0.2 * total) else 'train'
            if sp == 'test':
                ntest += len(comp[k])
            for p in comp[k]:
                split_of[p.id] = sp
    return split_of
