#!/usr/bin/env python3
"""Build twinpage's labelled web-page pairs from real pages (Python 3.11 stdlib only).

    python3 training-data/generate.py            # = --seed 7 --source ../shared/data/web-pages --out training-data/web

Reads the real pages in SOURCE (Mozilla Readability's test pages and the trafilatura
evaluation pages), keeps a seeded subset that fits the size budget, splits them by site
into train/test, and writes

    OUT/train.csv, OUT/test.csv      pairs (see training-data/README.md for the columns)
    OUT/docs/<sha256-prefix>.html.gz every document once, gzip with mtime=0
    OUT/SOURCES.md, OUT/LICENSE-*    where the pages came from

Everything is derived from --seed: two runs give byte-identical output.
Paths are resolved relative to the current directory (run it from the repo root).
"""
import argparse
import base64
import codecs
import datetime
import csv
import gzip
import hashlib
import html
import io
import json
import os
import re
import shutil
import sys
import textwrap
import unicodedata
import zlib
from bisect import bisect_right
from collections import Counter, defaultdict
from urllib.parse import urljoin, urlsplit, urlunsplit

import random

MAX_SOURCE_BYTES = 600_000

# Pair counts per kind over both splits (test gets its share of pages, at least TEST_MIN).
TARGETS = {
    # positives
    'mirror': 170, 'print': 172, 'plain-text': 170, 'prepend': 170,
    'rebrand': 170, 'syndicated': 175, 'small-edit': 170, 'dynamic': 172,
    # negatives
    'same-template': 250, 'same-site': 200, 'key-facts': 260, 'figures': 150, 'quote': 175, 'unrelated': 780,
}
POSITIVE = ['mirror', 'print', 'plain-text', 'prepend', 'rebrand', 'syndicated', 'small-edit', 'dynamic']
NEGATIVE = ['same-template', 'same-site', 'key-facts', 'figures', 'quote', 'unrelated']
# Pages 1 and 2 of one article: built after the kinds that need rendering, from their
# own random streams, rows written last (every earlier pair stays byte-identical).
PAGINATED_TARGET = 150
TEST_MIN = 36
SECONDARY_RATE = 0.25
QUERY_RATE = 0.30
N_TRAFILATURA = 300           # seeded subset of the trafilatura pages (size budget)
TRAF_MAX_GZ = 20_000          # ... among pages whose gzip size is at most this
DERIVED_BUDGET = 75_000       # a page gives at most max(2, this / its gzip size) full-size derived documents
REF_GZ = 9_000                # pages bigger than this (gzip) are picked for derived documents less often
BUDGET_BYTES = 55 * 1000 * 1000    # documents and sibling files (web/ stays under ~56 MB)

MARK_S = '<!--twp:core-->'
MARK_E = '<!--/twp:core-->'

# ----------------------------------------------------------------------------------------
# small utilities


def hrng(*keys):
    """A Random seeded from the given keys (stable across runs and Python versions)."""
    h = hashlib.sha256('\x1f'.join(str(k) for k in keys).encode('utf-8')).digest()
    return random.Random(int.from_bytes(h[:8], 'big'))


def sha(b):
    return hashlib.sha256(b).hexdigest()


def crc(s):
    return zlib.crc32(s.encode('utf-8'))


def gz_bytes(b):
    bio = io.BytesIO()
    with gzip.GzipFile(fileobj=bio, mode='wb', mtime=0, compresslevel=9) as f:
        f.write(b)
    return bio.getvalue()


def esc(s):
    return html.escape(s, quote=True)


def norm_ws(s):
    return ' '.join(s.split())


def strip_ws(s):
    return re.sub(r'\s+', '', s)


def slugify(s, maxlen=60):
    s = unicodedata.normalize('NFKD', s)
    s = ''.join(c for c in s if not unicodedata.combining(c))
    s = re.sub(r'[^\w\s-]', ' ', s.lower())
    s = re.sub(r'[\s_-]+', '-', s).strip('-')
    if len(s) > maxlen:
        s = s[:maxlen].rsplit('-', 1)[0]
    return s or 'page'


def url_slug(title, rng):
    """An ASCII slug for a made-up URL (numeric id when the title is not in Latin script)."""
    sl = slugify(title)
    if not sl.isascii() or len(sl) < 3:
        return '%d.html' % rng.randint(100000, 99999999)
    return sl


def apply_edits(s, edits):
    """edits: list of (start, end, replacement); non-overlapping ones are applied."""
    out = []
    last = len(s)
    for a, b, r in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if b > last:
            continue
        out.append(s[b:last])
        out.append(r)
        last = a
    out.append(s[:last])
    return ''.join(reversed(out))


# ----------------------------------------------------------------------------------------
# a small, position-keeping HTML tokenizer and tree

VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param',
        'source', 'track', 'wbr', 'keygen', 'basefont', 'bgsound', 'frame', 'command'}
RAWTEXT = {'script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext'}
RCDATA = {'title', 'textarea'}
HIDDEN = {'head', 'title', 'script', 'style', 'template', 'noscript', 'iframe', 'noembed', 'noframes'}
BLOCK = {'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'dialog', 'div', 'dl',
         'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5',
         'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'td',
         'th', 'tr', 'ul', 'body', 'html', 'caption', 'tbody', 'thead', 'tfoot', 'center',
         'option', 'summary', 'menu', 'img'}
CLOSES_P = {'address', 'article', 'aside', 'blockquote', 'div', 'dl', 'fieldset', 'footer', 'form',
            'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'nav', 'ol', 'p', 'pre',
            'section', 'table', 'ul', 'figure', 'details', 'menu', 'center'}
P_SCOPE = {'div', 'td', 'th', 'li', 'body', 'table', 'section', 'article', 'blockquote', 'html',
           'button', 'form', 'main', 'aside', 'header', 'footer', 'nav', 'figure', 'dd', 'dt'}
SELFCLOSE_OPEN = {'div', 'span', 'p', 'a', 'li', 'td', 'th', 'tr', 'table', 'ul', 'ol', 'section',
                  'article', 'b', 'i', 'em', 'strong', 'script', 'style', 'iframe', 'textarea',
                  'title', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'main', 'nav', 'header', 'footer'}

START_RE = re.compile(r'<([a-zA-Z][^\s/>]*)((?:[^>"\']|"[^"]*"|\'[^\']*\')*)>', re.S)
START_RE_SIMPLE = re.compile(r'<([a-zA-Z][^\s/>]*)([^>]*)>', re.S)
END_RE = re.compile(r'</([a-zA-Z][^\s/>]*)[^>]*>', re.S)
ATTR_RE = re.compile(r'([^\s=/>"\']+)(?:\s*=\s*("[^"]*"|\'[^\']*\'|[^\s>]+))?', re.S)
ENT_RE = re.compile(r'&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);?')
_close_re_cache = {}


def close_re(tag):
    r = _close_re_cache.get(tag)
    if r is None:
        r = re.compile(r'</%s(?=[\s/>])[^>]*>' % re.escape(tag), re.I)
        _close_re_cache[tag] = r
    return r


def tokenize(s):
    """Tokens: ('t', a, b) text, ('s', a, b, tag) start tag, ('e', a, b, tag) end tag,
    ('r', a, b) raw script/style body, ('c', a, b) comment/doctype."""
    toks = []
    i, n = 0, len(s)
    find = s.find
    while i < n:
        j = find('<', i)
        if j < 0:
            toks.append(('t', i, n))
            break
        if j > i:
            toks.append(('t', i, j))
        c = s[j + 1:j + 2]
        if c == '!' and s.startswith('<!--', j):
            if s.startswith('<!-->', j) or s.startswith('<!--->', j):   # abruptly closed empty comment
                k = find('>', j) + 1
            else:
                k = find('-->', j + 4)
                k = n if k < 0 else k + 3
            toks.append(('c', j, k))
            i = k
            continue
        if c == '/':
            m = END_RE.match(s, j)
            if m:
                toks.append(('e', j, m.end(), m.group(1).lower()))
                i = m.end()
                continue
            k = find('>', j)
            k = n if k < 0 else k + 1
            toks.append(('c', j, k))
            i = k
            continue
        if c == '!' or c == '?':
            k = find('>', j)
            k = n if k < 0 else k + 1
            toks.append(('c', j, k))
            i = k
            continue
        if c.isalpha():
            m = START_RE.match(s, j)
            if m is None or m.end() - j > 3000:
                m2 = START_RE_SIMPLE.match(s, j)
                if m2 is not None:
                    m = m2
            if m is not None:
                tag = m.group(1).lower()
                e = m.end()
                toks.append(('s', j, e, tag))
                if tag in RAWTEXT or tag in RCDATA:
                    mm = close_re(tag).search(s, e)
                    ce = mm.start() if mm else n
                    if ce > e:
                        toks.append(('r' if tag in RAWTEXT else 't', e, ce))
                    if mm:
                        toks.append(('e', mm.start(), mm.end(), tag))
                        i = mm.end()
                    else:
                        i = n
                    continue
                i = e
                continue
        toks.append(('t', j, j + 1))
        i = j + 1
    # merge adjacent text tokens
    out = []
    for t in toks:
        if t[0] == 't' and out and out[-1][0] == 't' and out[-1][2] == t[1]:
            out[-1] = ('t', out[-1][1], t[2])
        else:
            out.append(t)
    return out


class El:
    __slots__ = ('tag', 's', 'ie', 'ce', 'e', 'parent', 'children', 't0', 't1', 'hidden')

    def __init__(self, tag, s, ie, parent):
        self.tag, self.s, self.ie, self.parent = tag, s, ie, parent
        self.ce = self.e = None
        self.children = []
        self.t0 = self.t1 = 0
        self.hidden = tag in HIDDEN or (parent is not None and parent.hidden)


class Tree:
    def __init__(self, s):
        self.s = s
        self.toks = tokenize(s)
        self.root = El('#root', 0, 0, None)
        self.els = []
        self.texts = []      # (a, b, el)
        stack = [self.root]
        texts = self.texts

        def close(el, ce, e):
            el.ce, el.e, el.t1 = ce, e, len(texts)

        def pop_to(idx, pos):
            while len(stack) > idx:
                close(stack.pop(), pos, pos)

        for tok in self.toks:
            typ = tok[0]
            if typ == 't':
                texts.append((tok[1], tok[2], stack[-1]))
            elif typ == 's':
                tag = tok[3]
                if tag in CLOSES_P or tag in ('li', 'dt', 'dd', 'tr', 'td', 'th', 'option'):
                    for k in range(len(stack) - 1, 0, -1):
                        t = stack[k].tag
                        if tag in CLOSES_P and t == 'p':
                            pop_to(k, tok[1])
                            break
                        if tag == 'li' and t == 'li':
                            pop_to(k, tok[1])
                            break
                        if tag in ('dt', 'dd') and t in ('dt', 'dd'):
                            pop_to(k, tok[1])
                            break
                        if tag == 'tr' and t == 'tr':
                            pop_to(k, tok[1])
                            break
                        if tag in ('td', 'th') and t in ('td', 'th'):
                            pop_to(k, tok[1])
                            break
                        if tag == 'option' and t == 'option':
                            pop_to(k, tok[1])
                            break
                        if tag == 'li' and t in ('ul', 'ol', 'menu'):
                            break
                        if tag in ('td', 'th', 'tr') and t in ('table', 'tbody', 'thead', 'tfoot') \
                                and not (tag in ('td', 'th') and t == 'tr'):
                            break
                        if t in P_SCOPE and tag in CLOSES_P:
                            break
                        if tag in ('td', 'th') and t == 'tr':
                            break
                parent = stack[-1]
                el = El(tag, tok[1], tok[2], parent)
                el.t0 = len(texts)
                parent.children.append(el)
                self.els.append(el)
                selfclose = s[tok[2] - 2] == '/' and tag not in SELFCLOSE_OPEN
                if tag in VOID or selfclose:
                    close(el, tok[2], tok[2])
                else:
                    stack.append(el)
            elif typ == 'e':
                tag = tok[3]
                for k in range(len(stack) - 1, 0, -1):
                    if stack[k].tag == tag:
                        pop_to(k + 1, tok[1])
                        close(stack.pop(), tok[1], tok[2])
                        break
        pop_to(1, len(s))
        close(self.root, len(s), len(s))

    def attrs(self, el):
        s = self.s
        m = re.match(r'<[^\s/>]*', s[el.s:el.ie])
        a = {}
        body = s[el.s + (m.end() if m else 1):el.ie - 1]
        for mm in ATTR_RE.finditer(body):
            k = mm.group(1).lower()
            v = mm.group(2) or ''
            if v[:1] in ('"', "'"):
                v = v[1:-1]
            if k not in a:
                a[k] = html.unescape(v)
        return a

    def find_all(self, tag):
        return [e for e in self.els if e.tag == tag]


def tag_attrs(tagtext):
    """Attributes of one start tag given as text."""
    m = re.match(r'<[^\s/>]*', tagtext)
    a = {}
    for mm in ATTR_RE.finditer(tagtext[m.end() if m else 1:-1]):
        k = mm.group(1).lower()
        v = mm.group(2) or ''
        if v[:1] in ('"', "'"):
            v = v[1:-1]
        if k not in a:
            a[k] = html.unescape(v)
    return a


def extract_text(s, lo=0, hi=None, toks=None, keep_title=False):
    """Visible text of s[lo:hi] with a newline at block boundaries."""
    if hi is None:
        hi = len(s)
    if toks is None:
        toks = tokenize(s)
    parts = []
    hidden = Counter()
    nh = 0
    for t in toks:
        if t[2] <= lo:
            continue
        if t[1] >= hi:
            break
        typ = t[0]
        if typ == 't':
            if nh == 0:
                parts.append(html.unescape(s[max(t[1], lo):min(t[2], hi)]))
        elif typ == 's':
            tag = t[3]
            if tag in HIDDEN and not (keep_title and tag in ('title', 'head')):
                if tag not in VOID:
                    hidden[tag] += 1
                    nh += 1
            elif tag in BLOCK:
                parts.append('\n')
        elif typ == 'e':
            tag = t[3]
            if hidden[tag] > 0:
                hidden[tag] -= 1
                nh -= 1
            elif tag in BLOCK:
                parts.append('\n')
    txt = ''.join(parts)
    lines = [norm_ws(l) for l in txt.split('\n')]
    return '\n'.join(l for l in lines if l)


def text_spans(s, lo=0, hi=None, toks=None, include_title=False):
    """(a, b) spans of visible, non-blank text tokens inside [lo, hi)."""
    if hi is None:
        hi = len(s)
    if toks is None:
        toks = tokenize(s)
    out = []
    hidden = Counter()
    nh = 0
    for t in toks:
        if t[2] <= lo:
            continue
        if t[1] >= hi:
            break
        typ = t[0]
        if typ == 't':
            if (nh == 0 or (include_title and nh == hidden['title'] + hidden['head'])) \
                    and s[t[1]:t[2]].strip():
                out.append((max(t[1], lo), min(t[2], hi)))
        elif typ == 's':
            tag = t[3]
            if tag in HIDDEN and tag not in VOID:
                hidden[tag] += 1
                nh += 1
        elif typ == 'e':
            tag = t[3]
            if hidden[tag] > 0:
                hidden[tag] -= 1
                nh -= 1
    return out


def segments(s, a, b):
    """Non-entity sub-ranges of s[a:b]."""
    out = []
    pos = a
    for m in ENT_RE.finditer(s, a, b):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < b:
        out.append((pos, b))
    return out


def find_in_spans(s, spans, rx):
    out = []
    for a, b in spans:
        for sa, sb in segments(s, a, b):
            for m in rx.finditer(s, sa, sb):
                out.append((m.start(), m.end(), m.group(0)))
    return out


def core_bounds(s):
    a = s.find(MARK_S)
    b = s.find(MARK_E)
    if a < 0 or b < a:
        return None
    return a + len(MARK_S), b


# ----------------------------------------------------------------------------------------
# charsets

CHARSET_ALIASES = {'utf': 'utf-8', 'utf8': 'utf-8', 'iso-8859-1': 'cp1252', 'latin1': 'cp1252',
                   'latin-1': 'cp1252', 'iso8859-1': 'cp1252', 'us-ascii': 'cp1252', 'ascii': 'cp1252',
                   'gb2312': 'gb18030', 'gbk': 'gb18030', 'x-gbk': 'gb18030', 'shift_jis': 'cp932',
                   'x-sjis': 'cp932', 'sjis': 'cp932', 'euc-kr': 'cp949', 'windows-874': 'cp874',
                   'tis-620': 'cp874', 'iso-8859-9': 'cp1254', 'unicode': 'utf-8'}
META_CHARSET_RE = re.compile(rb'<meta[^>]+?charset\s*=\s*["\']?\s*([A-Za-z0-9_:.-]+)', re.I)
XML_ENC_RE = re.compile(rb'<\?xml[^>]+encoding\s*=\s*["\']([A-Za-z0-9_:.-]+)', re.I)


def detect_charset(b):
    """(python codec, declared name or None, how)."""
    if b.startswith(b'\xef\xbb\xbf'):
        return 'utf-8-sig', 'utf-8', 'bom'
    head = b[:65536]
    m = META_CHARSET_RE.search(head) or XML_ENC_RE.search(head)
    if m:
        name = m.group(1).decode('ascii', 'replace').lower()
        codec = CHARSET_ALIASES.get(name, name)
        try:
            codec = codecs.lookup(codec).name
        except LookupError:
            codec = None
        if codec and codec not in ('utf-8',) and re.search(rb'[\xc2-\xf4][\x80-\xbf]', b):
            # declared as a legacy charset, but the bytes are valid UTF-8 with multi-byte
            # sequences: the declaration is wrong (saved pages), read the real encoding
            try:
                b.decode('utf-8')
                return 'utf-8', name, 'meta-wrong'
            except UnicodeDecodeError:
                pass
        if codec:
            return codec, name, 'meta'
    try:
        b.decode('utf-8')
        return 'utf-8', None, 'guess'
    except UnicodeDecodeError:
        return 'cp1252', None, 'guess'


def fix_charset_decl(s):
    """Declare UTF-8 where the page declared something else (modified pages are UTF-8)."""
    def fix(m):
        return m.group(0) if m.group(2).lower() in ('utf-8', 'utf8') else m.group(1) + 'utf-8'
    s = re.sub(r'(<meta[^>]+?charset\s*=\s*["\']?\s*)([A-Za-z0-9_:.-]+)', fix, s, flags=re.I)
    s = re.sub(r'(<\?xml[^>]+encoding\s*=\s*["\'])([A-Za-z0-9_:.-]+)', fix, s, count=1, flags=re.I)
    return s


# ----------------------------------------------------------------------------------------
# language, words, localisation

STOP = {
    'en': 'the and of to in is that for it with as was on are be by this have from or at not but an they which you his her were has their been will would there what all when more said its who about one also'.split(),
    'de': 'der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über so zum war haben nur oder aber vor zur bis mehr durch man'.split(),
    'fr': 'le la les de des et en un une du est que qui dans pour pas au sur par plus ne se ce il elle sont avec son sa ses mais ou nous vous leur été être aux cette'.split(),
    'es': 'el la los las de del y en un una que es por con para se no su al lo como más pero sus le ya o este fue ha son entre cuando muy sin sobre también'.split(),
    'it': 'il lo la i gli le di del della e in un una che è per con non si da al dei delle sono come anche più ma nel alla questo'.split(),
    'pt': 'o a os as de do da dos das e em um uma que é para com não se por no na mais mas como ao foi são também ou seu sua'.split(),
    'nl': 'de het een en van in is dat op te zijn voor met die niet aan er om ook als bij of door maar naar dan nog wordt'.split(),
    'pl': 'i w na z do nie się że to jest o jak po przez od za dla co ale czy już tak jego oraz być może'.split(),
    'cs': 'a v na se je že s z do o to jako by za ale které i k po jsou pro od jeho tak'.split(),
    'sv': 'och i att det som en på är av för med till den har de inte om ett var jag men'.split(),
}
STOPSETS = {k: set(v) for k, v in STOP.items()}
ALL_STOP = set().union(*STOPSETS.values())

MONTHS = {
    'en': 'January February March April May June July August September October November December'.split(),
    'de': 'Januar Februar März April Mai Juni Juli August September Oktober November Dezember'.split(),
    'fr': 'janvier février mars avril mai juin juillet août septembre octobre novembre décembre'.split(),
    'es': 'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre'.split(),
    'it': 'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre'.split(),
    'pt': 'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro'.split(),
    'nl': 'januari februari maart april mei juni juli augustus september oktober november december'.split(),
}
WEEKDAYS = {
    'en': 'Monday Tuesday Wednesday Thursday Friday Saturday Sunday'.split(),
    'de': 'Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag'.split(),
    'fr': 'lundi mardi mercredi jeudi vendredi samedi dimanche'.split(),
    'es': 'lunes martes miércoles jueves viernes sábado domingo'.split(),
}

L10N = {
    'en': dict(print='Print', printed='Printed from', full='Full version', textonly='Text-only version',
               mirror='This is a mirror of {u}. Last synchronised {d}.',
               snapshot='Saved copy of {u} as it appeared on {d}.',
               orig='This article originally appeared on {s}.', reading='{n} people are reading this now',
               reco='Recommended for you', ad='Advertisement', updated='Last modified: {d}',
               published='Published {d}', home='Home', version='Version {v}', location='Location: {u}',
               cats='News World Business Technology Science Culture Sports Opinion Health Travel Politics Local'),
    'de': dict(print='Drucken', printed='Gedruckt von', full='Vollständige Version', textonly='Nur-Text-Version',
               mirror='Dies ist ein Spiegel von {u}. Zuletzt synchronisiert am {d}.',
               snapshot='Gespeicherte Kopie von {u} vom {d}.',
               orig='Dieser Artikel erschien zuerst bei {s}.', reading='{n} Personen lesen gerade diesen Artikel',
               reco='Empfohlen für Sie', ad='Anzeige', updated='Zuletzt geändert: {d}',
               published='Veröffentlicht am {d}', home='Startseite', version='Version {v}', location='Adresse: {u}',
               cats='Nachrichten Politik Wirtschaft Kultur Wissen Sport Reise Digital Gesellschaft Regional Panorama'),
    'fr': dict(print='Imprimer', printed='Imprimé depuis', full='Version complète', textonly='Version texte',
               mirror='Ceci est un miroir de {u}. Dernière synchronisation le {d}.',
               snapshot='Copie enregistrée de {u} telle qu\u2019elle apparaissait le {d}.',
               orig='Cet article a été publié à l\u2019origine sur {s}.', reading='{n} personnes lisent cet article',
               reco='Recommandé pour vous', ad='Publicité', updated='Dernière modification : {d}',
               published='Publié le {d}', home='Accueil', version='Version {v}', location='Adresse : {u}',
               cats='Actualités Monde Économie Culture Sciences Sport Politique Société Santé Voyage'),
    'es': dict(print='Imprimir', printed='Impreso desde', full='Versión completa', textonly='Versión solo texto',
               mirror='Esta es una réplica de {u}. Última sincronización: {d}.',
               snapshot='Copia guardada de {u} tal como aparecía el {d}.',
               orig='Este artículo se publicó originalmente en {s}.', reading='{n} personas están leyendo esto',
               reco='Recomendado para ti', ad='Publicidad', updated='Última modificación: {d}',
               published='Publicado el {d}', home='Inicio', version='Versión {v}', location='Dirección: {u}',
               cats='Noticias Mundo Economía Cultura Ciencia Deportes Política Sociedad Salud Viajes Nacionales'),
    'it': dict(print='Stampa', printed='Stampato da', full='Versione completa', textonly='Versione solo testo',
               mirror='Questo è un mirror di {u}. Ultima sincronizzazione {d}.',
               snapshot='Copia salvata di {u} del {d}.',
               orig='Questo articolo è apparso originariamente su {s}.', reading='{n} persone stanno leggendo',
               reco='Consigliati per te', ad='Pubblicità', updated='Ultima modifica: {d}',
               published='Pubblicato il {d}', home='Home', version='Versione {v}', location='Indirizzo: {u}',
               cats='Notizie Mondo Economia Cultura Scienza Sport Politica Salute Viaggi'),
    'pt': dict(print='Imprimir', printed='Impresso de', full='Versão completa', textonly='Versão só texto',
               mirror='Este é um espelho de {u}. Última sincronização em {d}.',
               snapshot='Cópia guardada de {u} em {d}.',
               orig='Este artigo foi publicado originalmente em {s}.', reading='{n} pessoas estão lendo agora',
               reco='Recomendados para você', ad='Publicidade', updated='Última modificação: {d}',
               published='Publicado em {d}', home='Início', version='Versão {v}', location='Endereço: {u}',
               cats='Notícias Mundo Economia Cultura Ciência Esporte Política Saúde Viagem'),
}


def loc(lang):
    return L10N.get(lang, L10N['en'])


def fmt_date(lang, y, mo, d):
    ms = MONTHS.get(lang)
    if lang == 'en':
        return '%s %d, %d' % (ms[mo - 1], d, y)
    if lang == 'de':
        return '%d. %s %d' % (d, ms[mo - 1], y)
    if ms:
        return '%d %s %d' % (d, ms[mo - 1], y)
    return '%04d-%02d-%02d' % (y, mo, d)


def rand_date(rng, lang, y0=2012, y1=2023):
    y, mo, d = rng.randint(y0, y1), rng.randint(1, 12), rng.randint(1, 28)
    return fmt_date(lang, y, mo, d), (y, mo, d)


def detect_lang(hint, text):
    if hint:
        h = hint.strip().lower().replace('_', '-').split('-')[0]
        if re.fullmatch(r'[a-z]{2,3}', h):
            return h
    sample = text[:20000]
    if not sample:
        return 'und'
    cjk = len(re.findall(r'[\u4e00-\u9fff]', sample))
    kana = len(re.findall(r'[\u3040-\u30ff]', sample))
    hang = len(re.findall(r'[\uac00-\ud7af]', sample))
    cyr = len(re.findall(r'[\u0400-\u04ff]', sample))
    ar = len(re.findall(r'[\u0600-\u06ff]', sample))
    he = len(re.findall(r'[\u0590-\u05ff]', sample))
    el = len(re.findall(r'[\u0370-\u03ff]', sample))
    n = max(1, len(sample))
    if kana > 20 and (kana + cjk) / n > 0.1:
        return 'ja'
    if hang / n > 0.1:
        return 'ko'
    if cjk / n > 0.1:
        return 'zh'
    for code, c in (('ru', cyr), ('ar', ar), ('he', he), ('el', el)):
        if c / n > 0.2:
            return code
    words = re.findall(r'[^\W\d_]+', sample.lower())
    best, bc = 'und', 0
    for code, ss in STOPSETS.items():
        c = sum(1 for w in words if w in ss)
        if c > bc:
            best, bc = code, c
    return best if bc >= 3 else 'und'


def title_words(title, lang, rng, k=None):
    words = re.findall(r'[^\W_][\w\'’-]*', title)
    good = [w for w in words if len(w) >= 3 and w.lower() not in ALL_STOP and not w.isdigit()]
    if not good:
        if lang in ('zh', 'ja', 'ko') and title:
            t = re.sub(r'[\s\W]+', '', title)
            if t:
                a = rng.randrange(max(1, len(t) - 3))
                return t[a:a + rng.randint(2, 4)]
        return ''
    if k is None:
        k = rng.choice([1, 2, 2, 2, 3, 3])
    # prefer the longer (more salient) words, keep their title order
    ranked = sorted(range(len(good)), key=lambda i: (-len(good[i]), i))[:max(k, 1)]
    return ' '.join(good[i] for i in sorted(ranked)).lower()[:60]


SYN = {
    'en': {'said': 'stated', 'says': 'states', 'people': 'folks', 'company': 'firm', 'companies': 'firms',
           'however': 'nevertheless', 'important': 'significant', 'big': 'large', 'started': 'began',
           'often': 'frequently', 'world': 'globe', 'children': 'kids', 'car': 'vehicle', 'cars': 'vehicles',
           'city': 'town', 'quickly': 'rapidly', 'maybe': 'perhaps', 'problem': 'issue', 'problems': 'issues',
           'website': 'site', 'users': 'customers', 'user': 'customer', 'government': 'administration',
           'almost': 'nearly', 'really': 'truly', 'because': 'since', 'difficult': 'hard',
           'beautiful': 'lovely', 'happy': 'glad', 'photo': 'picture', 'photos': 'pictures'},
    'de': {'sagte': 'erklärte', 'Menschen': 'Leute', 'Unternehmen': 'Firmen', 'aber': 'jedoch',
           'wichtig': 'bedeutend', 'wichtige': 'bedeutende', 'oft': 'häufig', 'viele': 'zahlreiche',
           'Problem': 'Schwierigkeit', 'Probleme': 'Schwierigkeiten', 'schnell': 'rasch',
           'vielleicht': 'eventuell', 'bekommen': 'erhalten', 'benutzen': 'verwenden', 'nutzen': 'verwenden',
           'Auto': 'Wagen', 'deshalb': 'daher', 'sehr': 'äußerst', 'immer': 'stets', 'jetzt': 'nun',
           'außerdem': 'zudem', 'trotzdem': 'dennoch', 'bereits': 'schon', 'ungefähr': 'etwa',
           'beginnen': 'anfangen', 'kaufen': 'erwerben', 'Kinder': 'Kids', 'Stadt': 'Kommune',
           'natürlich': 'selbstverständlich', 'wirklich': 'tatsächlich', 'Leben': 'Dasein',
           'einfach': 'schlicht', 'Firma': 'Unternehmen'},
    'fr': {'très': 'fort', 'aussi': 'également', 'souvent': 'fréquemment', 'maintenant': 'désormais',
           'rapidement': 'vite', 'entreprise': 'société', 'gens': 'personnes', 'voiture': 'automobile',
           'problème': 'souci', 'commencer': 'débuter', 'acheter': 'acquérir', 'utiliser': 'employer',
           'important': 'essentiel', 'mais': 'cependant', 'peut-être': 'sans doute', 'enfants': 'gamins',
           'ville': 'cité', 'travail': 'boulot', 'toujours': 'sans cesse', 'beaucoup': 'énormément'},
    'es': {'muy': 'sumamente', 'también': 'asimismo', 'ahora': 'actualmente', 'rápidamente': 'velozmente',
           'empresa': 'compañía', 'coche': 'auto', 'problema': 'inconveniente', 'comenzar': 'empezar',
           'comprar': 'adquirir', 'usar': 'utilizar', 'importante': 'relevante', 'dijo': 'afirmó',
           'pero': 'aunque', 'niños': 'chicos', 'ciudad': 'urbe', 'gobierno': 'ejecutivo',
           'trabajo': 'empleo', 'siempre': 'constantemente', 'personas': 'individuos', 'país': 'nación'},
    'it': {'molto': 'assai', 'anche': 'pure', 'adesso': 'ora', 'azienda': 'impresa', 'problema': 'questione',
           'importante': 'rilevante', 'bambini': 'ragazzi', 'città': 'centro', 'lavoro': 'impiego',
           'sempre': 'costantemente', 'persone': 'individui', 'ma': 'però'},
    'pt': {'muito': 'bastante', 'também': 'igualmente', 'agora': 'atualmente', 'empresa': 'companhia',
           'problema': 'questão', 'importante': 'relevante', 'crianças': 'miúdos', 'cidade': 'urbe',
           'trabalho': 'emprego', 'sempre': 'constantemente', 'pessoas': 'indivíduos', 'mas': 'porém'},
    'nl': {'zeer': 'heel', 'ook': 'eveneens', 'nu': 'thans', 'bedrijf': 'onderneming', 'probleem': 'kwestie',
           'belangrijk': 'essentieel', 'kinderen': 'kids', 'stad': 'gemeente', 'werk': 'arbeid',
           'altijd': 'steeds', 'mensen': 'personen', 'maar': 'doch'},
}
ADVERBS = {'en': ['very', 'really', 'also', 'just', 'quite', 'actually'],
           'de': ['sehr', 'auch', 'eigentlich', 'wirklich', 'ganz', 'noch'],
           'fr': ['très', 'vraiment', 'aussi', 'encore'], 'es': ['muy', 'realmente', 'también', 'ya'],
           'it': ['molto', 'davvero', 'anche'], 'pt': ['muito', 'realmente', 'também']}
AND = {'en': 'and', 'de': 'und', 'fr': 'et', 'es': 'y', 'it': 'e', 'pt': 'e', 'nl': 'en'}

BRANDS = {
    'en': ['Northwind Daily', 'Bluefield Post', 'Kestrel News', 'Meridian Review', 'Harbor Ledger',
           'Lantern Times', 'Copperleaf Media', 'Silverline Report', 'Granite Herald', 'Oakridge Journal',
           'Brightwater Gazette', 'Pinecrest Observer', 'Riverstone Tribune', 'Summit Courier',
           'Foxglove Magazine', 'Halcyon Wire', 'Juniper Digest', 'Redwood Chronicle', 'Saltmarsh Press',
           'Tidewater Bulletin', 'Cobalt Insider', 'Evergreen Dispatch'],
    'de': ['Rheinblick Anzeiger', 'Nordlicht Zeitung', 'Tannenhof Blatt', 'Alpenkurier', 'Elbufer Rundschau',
           'Heideland Bote', 'Moselwelle', 'Lindenhof Journal', 'Bergstraße Echo', 'Spreeblick Magazin'],
    'fr': ['Le Courrier du Lac', 'La Gazette des Tilleuls', 'L\u2019Écho des Collines', 'Le Veilleur',
           'Horizon Hebdo'],
    'es': ['El Heraldo del Valle', 'Diario Costa Azul', 'La Voz del Puerto', 'El Mirador Digital',
           'Crónica del Sur'],
}
NAMES2 = ['Laura Bennett', 'Marco Rossi', 'Jonas Keller', 'Amélie Dubois', 'Carlos Ortega', 'Priya Nair',
          'Tomasz Nowak', 'Elena Petrova', 'Hannah Weber', 'Samuel Okoro', 'Yuki Tanaka', 'Lucas Martin',
          'Sofia Lindqvist', 'Daniel Fischer', 'Grace Holloway', 'Mateo Alvarez', 'Nadia Haddad',
          'Oliver Grant', 'Clara Hoffmann', 'Ines Moreau', 'Victor Almeida', 'Julia Kowalski',
          'Henrik Berg', 'Rosa Delgado', 'Felix Brandt', 'Anna Schulte', 'Peter Lang', 'Maria Costa']
NAMES1 = ['Lisbon', 'Graz', 'Leeds', 'Valencia', 'Tampere', 'Utrecht', 'Brno', 'Porto', 'Cork', 'Malmö',
          'Bergamo', 'Ghent', 'Aarhus', 'Bremen', 'Lyon', 'Krakow', 'Salzburg', 'Dundee', 'Bilbao',
          'Freiburg', 'Turin', 'Basel', 'Nantes', 'Halifax', 'Odense', 'Linz', 'Aachen', 'Quimper',
          'Hartley', 'Morrison', 'Castell', 'Brenner', 'Ashford', 'Kramer', 'Delacroix', 'Whitfield']
MIRROR_HOSTS = ['webmirror.org', 'mirrorhub.net', 'sitecopy.net', 'pagevault.org', 'cachepoint.io',
                'netzspiegel.de', 'miroir-web.fr', 'espejo.net', 'mirror.unet-archive.org',
                'copies.openpages.net', 'replica-web.com', 'mirrors.fastpage.eu']
SNAPSHOT_HOSTS = ['snapshots.pagevault.org', 'archive.webkeep.net', 'saved.pagetime.io', 'frozen.sitecopy.net']
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
MULTI_TENANT = {'wordpress.com', 'blogspot.com', 'hypotheses.org', 'tumblr.com', 'medium.com',
                'github.io', 'wixsite.com', 'over-blog.com', 'blogger.com', 'livejournal.com', 'typepad.com'}


def regdom(host):
    host = (host or '').lower().strip('.')
    if host.startswith('www.'):
        host = host[4:]
    p = host.split('.')
    if len(p) >= 3 and p[-2] in ('co', 'com', 'org', 'net', 'ac', 'gov', 'edu', 'or', 'ne', 'gv', 'gob') \
            and len(p[-1]) == 2:
        return '.'.join(p[-3:])
    return '.'.join(p[-2:])


def effective_url(url):
    """The archived URL inside a wayback URL, else the URL itself."""
    m = re.match(r'https?://web\.archive\.org/web/\d+\w*/(.*)$', url)
    if m:
        u = m.group(1)
        if not re.match(r'https?://', u):
            u = 'http://' + u
        return u
    return url


def site_key(url):
    """Registered domain used to group pages of one site (wayback URLs use the archived host)."""
    url = effective_url(url)
    host = (urlsplit(url).hostname or '').lower()
    rd = regdom(host)
    if rd in MULTI_TENANT:
        h = host[4:] if host.startswith('www.') else host
        return h
    return rd


# ----------------------------------------------------------------------------------------
# source pages

class Page:
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
        self.core_tag = ''
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
        self.notes = []

    @property
    def host(self):
        return (urlsplit(self.url).hostname or '').lower()

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
        p.core_tag = core_el.tag
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
            p.notes.append('url made up')
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
        core_el, found, w = locate_core(tree, snippets)
        if core_el is None or w < max(1, len(snippets) // 2):
            core_el = None
            p.notes.append('core not located in source (%d/%d snippets)' % (w, len(snippets)))
        elif len(extract_text(p.text, core_el.ie, core_el.ce, tree.toks)) < 0.6 * len(exp_text):
            p.notes.append('located core covers only part of expected.html')
            core_el = None
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
            p.notes.append('url made up')
    p.url = url
    p.site = p.site or site_from(url, p.title)
    core_el, found, w = locate_core(tree, v.get('with') or [], v.get('without') or [], climb=True)
    if core_el is None:
        p.notes.append('no core snippet found (%d of %d)' % (found, len(v.get('with') or [])))
    finish_page(p, tree, core_el)
    if core_el is not None:
        # a "core" that is nearly the whole page is no core
        if len(p.core_text) > 0.985 * max(1, p.body_text_len) or len(p.core_text) < 150:
            p.notes.append('core too large/small (%d of %d chars)' % (len(p.core_text), p.body_text_len))
            p.core_loc = None
    if p.core_loc:
        s = p.text
        p.core_html = s[p.core_loc[0]:p.core_loc[1]]
    else:
        p.core_text = ''
    p.group = site_key(p.url)
    return p


# ----------------------------------------------------------------------------------------
# near-duplicate sources (some pages exist twice)

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


# ----------------------------------------------------------------------------------------
# documents

class Doc:
    def __init__(self, page, html_text, url, title, original=False, source=None, lang=None):
        self.page = page
        self.html = html_text
        self.url = url
        self.title = title
        self.original = original
        self.source = source or page.id
        self.lang = lang or page.lang
        self.steps = []
        self.charset_page = None   # the page whose HTML (and charset declaration) the document uses

    def final_bytes(self):
        if self.original:
            return self.page.raw
        s = self.html.replace(MARK_S, '').replace(MARK_E, '')
        s = fix_charset_decl(s)
        cp = self.charset_page or self.page
        if cp.declared is None and cp.codec != 'utf-8' and not re.search(r'<meta[^>]+charset', s[:65536], re.I):
            # the page had no declaration and was not UTF-8: say what it is now
            hm = re.search(r'<head\b[^>]*>', s, re.I)
            k = hm.end() if hm else 0
            s = s[:k] + '<meta charset="utf-8">' + s[k:]
        return s.encode('utf-8', errors='replace')


def original(page):
    return Doc(page, page.marked(), page.url, page.title, original=True)


def derive(doc, html_text, url=None, title=None, step=None):
    d = Doc(doc.page, html_text, url or doc.url, title or doc.title, source=doc.source, lang=doc.lang)
    d.steps = doc.steps + ([step] if step else [])
    d.charset_page = doc.charset_page
    return d


def body_open_end(s):
    m = re.search(r'<body\b[^>]*>', s, re.I)
    if m:
        return m.end()
    m = re.search(r'</head\s*>', s, re.I)
    return m.end() if m else 0


def body_close_start(s):
    k = s.lower().rfind('</body')
    if k < 0:
        k = s.lower().rfind('</html')
    return k if k >= 0 else len(s)


def after_core_element(s):
    """Position just after the element that holds the core (the end tag following MARK_E)."""
    k = s.find(MARK_E)
    if k < 0:
        return None
    m = re.compile(r'</[a-zA-Z][^>]*>').search(s, k + len(MARK_E))
    return m.end() if m else None


def url_parts(url):
    u = urlsplit(url)
    return u.scheme or 'https', (u.hostname or 'example.org').lower(), u.path or '/', u.query, u.fragment


def with_host(url, host, scheme=None):
    sc, h, path, q, fr = url_parts(url)
    return urlunsplit((scheme or sc, host, path, q, ''))


def add_query(url, kv):
    sc, h, path, q, fr = url_parts(url)
    q = (q + '&' if q else '') + kv
    return urlunsplit((sc, h, path, q, ''))


def absolutize(fragment, base):
    def fix(m):
        v = m.group(3)
        if re.match(r'(?i)(https?:|//|#|mailto:|javascript:|data:|tel:)', v) or not v.strip():
            return m.group(0)
        try:
            return m.group(1) + m.group(2) + urljoin(base, html.unescape(v)).replace('&', '&amp;') + m.group(2)
        except ValueError:
            return m.group(0)
    return re.sub(r'(\s(?:href|src)\s*=\s*)(["\'])([^"\']*)\2', fix, fragment, flags=re.I)


def clean_fragment(fragment, base):
    f = re.sub(r'(?is)<(script|style|iframe|noscript|form|button|select|svg|template)\b.*?</\1\s*>', '', fragment)
    f = re.sub(r'(?is)<(script|style|iframe|input|button)\b[^>]*>', '', f)
    f = re.sub(r'(?s)<!--.*?-->', '', f)

    def strip_attrs(m):
        tag = m.group(1)
        keep = []
        for mm in ATTR_RE.finditer(m.group(2)):
            k = mm.group(1).lower()
            if k in ('href', 'src', 'alt', 'title', 'colspan', 'rowspan', 'lang', 'dir') and mm.group(2):
                keep.append('%s=%s' % (k, mm.group(2) if mm.group(2)[:1] in '"\'' else '"%s"' % mm.group(2)))
        return '<%s%s>' % (tag, (' ' + ' '.join(keep)) if keep else '')
    f = re.sub(r'<([a-zA-Z][a-zA-Z0-9]*)(\s[^>]*?)/?>', strip_attrs, f)
    f = absolutize(f, base)
    return f.strip()


# ----------------------------------------------------------------------------------------
# transformations (each returns a new Doc, or None when it cannot apply)

def t_mirror(doc, rng, ctx):
    s = doc.html
    sc, host, path, q, fr = url_parts(doc.url)
    bare = host[4:] if host.startswith('www.') else host
    style = rng.choices(['host', 'path', 'sub', 'snapshot'], [3, 3, 2, 3])[0]
    d8, _ = rand_date(rng, doc.lang, 2016, 2024)
    L = loc(doc.lang)
    if style == 'host':
        mh = bare.replace('.', '-') + '.' + rng.choice(MIRROR_HOSTS)
        new_url = with_host(doc.url, mh, 'https')
    elif style == 'path':
        mh = rng.choice(MIRROR_HOSTS)
        new_url = urlunsplit(('https', mh, '/' + bare + path, q, ''))
    elif style == 'sub':
        rd = regdom(host)
        mh = rng.choice(['www2.', 'mirror.', 'web2.', 'eu.', 'us.', 'm.']) + rd
        if mh == host:
            mh = 'www3.' + rd
        new_url = with_host(doc.url, mh)
    else:
        mh = rng.choice(SNAPSHOT_HOSTS)
        ts = '%04d%02d%02d%02d%02d%02d' % (rng.randint(2016, 2024), rng.randint(1, 12), rng.randint(1, 28),
                                           rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        new_url = 'https://%s/%s/%s' % (mh, ts, doc.url)
    nh = urlsplit(new_url).hostname
    # rewrite absolute links to the mirror
    if style == 'snapshot':
        prefix = new_url[:new_url.find('/http') + 1] if '/http' in new_url else 'https://%s/' % nh
        s = re.sub(r'(\shref\s*=\s*["\'])(https?://)', lambda m: m.group(1) + prefix + m.group(2), s, flags=re.I)
        # static snapshot: scripts removed (as archivers do)
        s = re.sub(r'(?is)<script\b(?![^>]*application/ld\+json)[^>]*>.*?</script\s*>', '', s)
    else:
        pat = re.compile(r'(https?:)?//(?:www\.)?' + re.escape(bare) + r'(?=[/"\'?#:\s<)]|$)', re.I)
        repl_host = nh if style != 'path' else '%s/%s' % (nh, bare)
        s = pat.sub(lambda m: (m.group(1) or '') + '//' + repl_host, s)
    # a base element and/or banner
    if rng.random() < 0.4 and style != 'snapshot':
        hm = re.search(r'<head\b[^>]*>', s, re.I)
        base = '<base href="%s">' % esc(new_url.rsplit('/', 1)[0] + '/')
        s = re.sub(r'<base\b[^>]*>', '', s, flags=re.I)
        if hm:
            s = s[:hm.end()] + base + s[hm.end():]
    if style == 'snapshot' or rng.random() < 0.55:
        msg = (L['snapshot'] if style == 'snapshot' else L['mirror']).format(u=esc(doc.url), d=d8)
        banner = ('\n<div id="mirror-banner" style="background:#ffc;border-bottom:1px solid #cc9;'
                  'padding:4px 8px;font:12px sans-serif">%s <a href="%s">%s</a></div>\n'
                  % (msg, esc(doc.url), esc(bare)))
        k = body_open_end(s)
        s = s[:k] + banner + s[k:]
    d = derive(doc, s, new_url, step='mirror:' + style)
    return d


def _print_body(page):
    if page.coll == 'readability':
        return clean_fragment(page.core_html, page.url)
    if page.core_loc:
        return clean_fragment(page.core_html, page.url)
    return ''


def t_print(doc, rng, ctx):
    page = doc.page
    body = _print_body(page)
    if len(extract_text(body)) < 200:
        return None
    L = loc(doc.lang)
    sc, host, path, q, fr = url_parts(page.url)
    style = rng.randrange(3)
    ustyle = rng.randrange(5)
    if ustyle == 0:
        url = urlunsplit((sc, host, '/print' + path, q, ''))
    elif ustyle == 1:
        url = add_query(page.url, 'print=1')
    elif ustyle == 2:
        url = add_query(page.url, rng.choice(['view=print', 'output=print', 'format=print', 'tmpl=component&print=1']))
    elif ustyle == 3:
        url = urlunsplit((sc, host, path.rstrip('/') + '/print/', q, ''))
    else:
        url = urlunsplit((sc, host, '/print.php', 'id=%d' % rng.randint(1000, 999999), ''))
    title = page.ctitle or page.site
    date, _ = rand_date(rng, doc.lang)
    year = rng.randint(2015, 2024)
    meta_line = ' · '.join(x for x in [esc(page.byline), date if rng.random() < 0.6 else ''] if x)
    lang_attr = doc.lang if doc.lang != 'und' else 'en'
    if style == 0:
        out = ('<!DOCTYPE html>\n<html lang="%s">\n<head>\n<meta charset="utf-8">\n<title>%s - %s</title>\n'
               '<meta name="robots" content="noindex, follow">\n'
               '<style>body{font:12pt Georgia,serif;margin:2em;color:#000}img{max-width:100%%}'
               '.print-header,.print-footer{font:9pt sans-serif;color:#444}</style>\n</head>\n'
               '<body class="print" onload="window.print()">\n<div class="print-header">%s &mdash; %s</div>\n'
               '<h1>%s</h1>\n%s<div class="print-body">\n%s%s%s\n</div>\n'
               '<div class="print-footer">&copy; %d %s. %s %s</div>\n</body>\n</html>\n'
               % (lang_attr, esc(title), L['print'], esc(page.site), esc(url), esc(title),
                  ('<p class="meta">%s</p>\n' % meta_line) if meta_line else '', MARK_S, body, MARK_E,
                  year, esc(page.site), L['printed'], esc(page.url)))
    elif style == 1:
        out = ('<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n'
               '<title>%s</title>\n<link rel="stylesheet" type="text/css" href="/css/print.css" media="all">\n'
               '</head>\n<body>\n<table width="100%%" cellpadding="0" cellspacing="0"><tr><td>'
               '<b>%s</b></td><td align="right"><a href="javascript:window.print()">%s</a></td></tr></table>\n'
               '<hr>\n<h2>%s</h2>\n%s%s%s\n<hr>\n<p><small>%s: %s</small></p>\n</body>\n</html>\n'
               % (esc(title), esc(page.site), L['print'], esc(title), MARK_S, body, MARK_E,
                  L['printed'], esc(page.url)))
    else:
        out = ('<!doctype html>\n<html lang="%s"><head><meta charset="utf-8"><meta name="viewport" '
               'content="width=device-width"><title>%s | %s</title><link rel="canonical" href="%s">'
               '<style>@media print{.no-print{display:none}} body{max-width:40em;margin:auto;'
               'font-family:serif}</style></head><body><article class="print-article"><header><h1>%s</h1>'
               '%s</header><section>%s%s%s</section></article><p class="no-print"><a href="%s">&larr; %s</a>'
               '</p></body></html>\n'
               % (lang_attr, esc(title), esc(page.site), esc(page.url), esc(title),
                  ('<p class="byline">%s</p>' % meta_line) if meta_line else '', MARK_S, body, MARK_E,
                  esc(page.url), L['full']))
    d = Doc(page, out, url, title, source=doc.source, lang=doc.lang)
    d.steps = doc.steps + ['print:%d' % style]
    return d


def t_plain(doc, rng, ctx):
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


def t_prepend(doc, rng, ctx):
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


def brand_strings(doc):
    page = doc.page
    out = []
    if page.site and 3 <= len(page.site) <= 60:
        out.append(page.site)
    host = urlsplit(effective_url(doc.url)).hostname or ''
    label = regdom(host).split('.')[0]
    if len(label) >= 4 and label.lower() not in ALL_STOP:
        out.append(label)
    return out


def replace_everywhere(s, mapping, spans_all, include_attrs=True, toks=None):
    """Replace whole words (mapping: exact string -> replacement) in visible text, title and
    some attributes. Returns (new string, number of replacements)."""
    if not mapping:
        return s, 0
    keys = sorted(mapping, key=len, reverse=True)
    rx = re.compile(r'(?<![\w])(' + '|'.join(re.escape(k) for k in keys) + r')(?![\w])')
    edits = []
    for a, b, w in find_in_spans(s, spans_all, rx):
        edits.append((a, b, mapping[w]))
    if include_attrs:
        toks = toks or tokenize(s)
        arx = re.compile(r'(\s(?:alt|title|content|aria-label)\s*=\s*)("[^"]*"|\'[^\']*\')', re.I)
        for t in toks:
            if t[0] != 's' or t[3] in ('script', 'style'):
                continue
            tagtext = s[t[1]:t[2]]
            if t[3] == 'meta' and not re.search(r'(?i)(og:|twitter:|description|title|application-name|site_name|author)', tagtext):
                continue
            for m in arx.finditer(tagtext):
                val = m.group(2)
                new = rx.sub(lambda mm: esc(mapping[mm.group(1)]), val)
                if new != val:
                    a = t[1] + m.start(2)
                    edits.append((a, a + len(val), new))
    return apply_edits(s, edits), len(edits)


def t_rebrand(doc, rng, ctx):
    s = doc.html
    lang = doc.lang
    toks = tokenize(s)
    spans = text_spans(s, toks=toks, include_title=True)
    text = ' '.join(s[a:b] for a, b in spans)
    mapping = {}
    pool = BRANDS.get(lang, BRANDS['en'])
    new_brand = rng.choice(pool)
    new_label = slugify(new_brand).replace('-', '')
    for i, old in enumerate(brand_strings(doc)):
        if i == 0:
            for v in sorted({old, old.upper(), old.lower()}):
                if re.search(r'(?<!\w)' + re.escape(v) + r'(?!\w)', text):
                    mapping[v] = new_brand if v == old else (new_brand.upper() if v == old.upper() else new_brand.lower())
        else:
            for v, nv in ((old, new_label), (old.capitalize(), new_label.capitalize()), (old.upper(), new_label.upper())):
                if v not in mapping and re.search(r'(?<!\w)' + re.escape(v) + r'(?!\w)', text):
                    mapping[v] = nv
    syn = SYN.get(lang, {})
    cands = []
    for w, r in sorted(syn.items()):
        n = len(re.findall(r'(?<!\w)' + re.escape(w) + r'(?!\w)', text))
        if n:
            cands.append((n, w, r))
    rng.shuffle(cands)
    cands.sort(key=lambda x: -x[0])
    for n, w, r in cands[:rng.randint(2, 4)]:
        mapping[w] = r
        if w[:1].islower():
            mapping[w[:1].upper() + w[1:]] = r[:1].upper() + r[1:]
    s2, n = replace_everywhere(s, mapping, spans, toks=toks)
    if n < 3:
        return None
    # the rebranded site lives on its own host; links to the old host follow
    tld = {'de': 'de', 'fr': 'fr', 'es': 'es', 'it': 'it'}.get(lang, rng.choice(['com', 'com', 'net', 'org']))
    nh = 'www.%s.%s' % (new_label, tld)
    host = urlsplit(effective_url(doc.url)).hostname or ''
    bare = host[4:] if host.startswith('www.') else host
    if bare:
        s2 = re.sub(r'(https?:)?//(?:www\.)?' + re.escape(bare) + r'(?=[/"\'?#:\s<)]|$)',
                    lambda m: (m.group(1) or '') + '//' + nh, s2, flags=re.I)
    title = doc.title
    for k in sorted(mapping, key=len, reverse=True):
        title = re.sub(r'(?<!\w)' + re.escape(k) + r'(?!\w)', mapping[k], title)
    d = derive(doc, s2, with_host(effective_url(doc.url), nh, 'https'), title, step='rebrand:%d' % n)
    return d


def set_title(s, new_title):
    m = re.search(r'(?is)(<title\b[^>]*>)(.*?)(</title\s*>)', s)
    if m:
        return s[:m.start(2)] + esc(new_title) + s[m.end(2):]
    hm = re.search(r'<head\b[^>]*>', s, re.I)
    if hm:
        return s[:hm.end()] + '<title>%s</title>' % esc(new_title) + s[hm.end():]
    return s


def transplant(x, ydoc, rng, ctx, attribution=True):
    """X's core content in Y's template (Y's own core removed)."""
    s = ydoc.html
    cb = core_bounds(s)
    if not cb:
        return None
    body = _print_body(x) if x.coll == 'readability' else clean_fragment(x.core_html, x.url)
    if len(extract_text(body)) < 200:
        return None
    y = ydoc.page
    L = loc(x.lang)
    if attribution and rng.random() < 0.5:
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
    stack = []
    for t in toks:
        if t[0] == 's' and t[3] in ('h1', 'h2'):
            stack.append(t)
        elif t[0] == 'e' and t[3] in ('h1', 'h2') and stack:
            st = stack.pop()
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
    d.template = y.id
    d.charset_page = y
    d.steps = ['transplant:%s' % y.id]
    return d


def typo(word, rng):
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 2)
    op = rng.randrange(3)
    if op == 0 and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if op == 1:
        return word[:i] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def t_small_edit(doc, rng, ctx):
    s = doc.html
    cb = core_bounds(s)
    if not cb:
        return None
    toks = tokenize(s)
    spans = text_spans(s, cb[0], cb[1], toks)
    if not spans:
        return None
    edits = []
    done = []
    lang = doc.lang
    ops = rng.sample(['typo', 'typo', 'sentence', 'reword', 'markup'], rng.randint(2, 4))
    if 'typo' not in ops and 'sentence' not in ops and 'reword' not in ops:
        ops.append('typo')
    used = set()
    if 'typo' in ops:
        words = find_in_spans(s, spans, re.compile(r'[^\W\d_]{6,}'))
        for a, b, w in rng.sample(words, min(len(words), rng.randint(1, 3))):
            nw = typo(w, rng)
            if nw != w:
                edits.append((a, b, nw))
                used.add(a)
        done.append('typo')
    if 'sentence' in ops:
        longs = [(a, b) for a, b in spans if b - a > 160 and len(re.findall(r'[.!?]\s', s[a:b])) >= 2]
        if longs:
            a, b = rng.choice(longs)
            seg = s[a:b]
            bounds = [m.end() for m in re.finditer(r'[.!?]["”»)]?\s+', seg)]
            if len(bounds) >= 2:
                k = rng.randrange(len(bounds) - 1)
                sa, sb = bounds[k], bounds[k + 1]
                if sb - sa < 0.3 * max(1, cb[1] - cb[0]) and not any(a + sa <= u < a + sb for u in used):
                    edits.append((a + sa, a + sb, ''))
                    done.append('drop-sentence')
    if 'reword' in ops:
        choices = []
        for w, r in SYN.get(lang, {}).items():
            choices.append((w, r))
        for adv in ADVERBS.get(lang, []):
            choices.append((adv + ' ', ''))
        rng.shuffle(choices)
        hit = False
        for w, r in choices[:20]:
            rx = re.compile(r'(?<!\w)' + re.escape(w) + (r'(?!\w)' if not w.endswith(' ') else ''))
            occ = find_in_spans(s, spans, rx)
            occ = [o for o in occ if not any(o[0] <= u < o[1] for u in used)]
            if occ:
                a, b, _ = rng.choice(occ)
                edits.append((a, b, r))
                used.add(a)
                hit = True
                break
        if not hit:
            andw = AND.get(lang)
            if andw:
                rx = re.compile(r'\b([^\W\d_]{3,12}) ' + andw + r' ([^\W\d_]{3,12})\b')
                occ = find_in_spans(s, spans, rx)
                if occ:
                    a, b, t = rng.choice(occ)
                    l, r = t.split(' ' + andw + ' ')
                    edits.append((a, b, '%s %s %s' % (r, andw, l)))
                    hit = True
        if hit:
            done.append('reword')
    s2 = apply_edits(s, edits)
    if 'markup' in ops or not edits:
        before = s2
        r = rng.random()
        s2 = re.sub(r'<(/?)b>', r'<\1strong>', s2)
        s2 = re.sub(r'<(/?)i>', r'<\1em>', s2)
        if r < 0.5:
            s2 = re.sub(r'<br\s*/?>', '<br />' if rng.random() < 0.5 else '<br>', s2, flags=re.I)
        if r > 0.3:
            s2 = re.sub(r'>[ \t]*\n[ \t]*<', '>\n<', s2)
        else:
            s2 = re.sub(r'(</(?:p|div|li|h\d)>)(?=<)', r'\1\n  ', s2)
        # drop plain comments (not conditional comments, not our markers)
        s2 = re.sub(r'<!--(?![\[>]|<!|/?twp:)(?:(?!<!\[|-->)[\s\S])*-->', '', s2)
        if s2 != before:
            done.append('markup')
    if s2 == s or not done:
        return None
    sc, host, path, q, fr = url_parts(doc.url)
    u = rng.randrange(6)
    if u == 0:
        url = urlunsplit((sc, host, path[:-1] if path.endswith('/') and len(path) > 1 else path + '/', q, ''))
    elif u == 1:
        url = add_query(doc.url, rng.choice(['rev=2', 'updated=1', 'v=2', 'version=3']))
    elif u == 2:
        url = urlunsplit((sc, host[4:] if host.startswith('www.') else 'www.' + host, path, q, ''))
    elif u == 3:
        url = urlunsplit(('http' if sc == 'https' else 'https', host, path, q, ''))
    elif u == 4:
        url = urlunsplit((sc, host, path.rstrip('/') + '/index.html', q, ''))
    else:
        url = add_query(doc.url, 'utm_source=newsletter&utm_medium=email')
    if url == doc.url:
        url = add_query(doc.url, 'rev=2')
    return derive(doc, s2, url, step='small-edit:' + '+'.join(done))


def ad_block(rng, lang):
    L = loc(lang)
    sp = rng.choice(SPONSORS)
    line = rng.choice(AD_LINES.get(lang, AD_LINES['en'])).format(p=rng.randint(10, 70), n=rng.randint(2, 99))
    aid = '%08x' % rng.getrandbits(32)
    return ('<div class="ad-slot" id="ad-%s" data-ad-unit="%d"><span class="ad-label">%s</span>'
            ' <a href="https://ads.%s/click?c=%s" rel="sponsored nofollow"><b>%s</b> &ndash; %s</a></div>'
            % (aid, rng.randint(100000, 999999), L['ad'], rng.choice(['adnet-serve.com', 'clickstream-ads.net',
                                                                    'promo-exchange.io']), aid, esc(sp), esc(line)))


def t_dynamic(doc, rng, ctx):
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


NUM_RE = re.compile(r'(?<![\w.,:/-])\d+(?:[.,]\d+)*(?![\w:/])')
CAP_PAIR_RE = re.compile(r'(?<![\w])([A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ\'’-]{2,}) ([A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ\'’-]{2,})(?![\w])')


def change_number(n, rng):
    """Another plausible value of the same shape (years move a little, small counts stay small)."""
    if re.fullmatch(r'(19|20)\d\d', n):
        return str(int(n) + rng.choice([-3, -2, -1, 1, 2, 3]))
    m = re.fullmatch(r'(\d{1,2})([./])(\d{1,2})\2(\d{2}|\d{4})', n)
    if m:   # a date: another day, sometimes another year
        d = int(m.group(1))
        nd = d + rng.choice([-1, 1]) * rng.randint(1, 9)
        nd = nd if 1 <= nd <= 28 else max(1, min(28, d - 5 if d > 5 else d + 5))
        y = m.group(4)
        if rng.random() < 0.3:
            y = str(int(y) + rng.choice([-1, 1])).zfill(len(y))
        return '%s%s%s%s%s' % (str(nd).zfill(len(m.group(1))), m.group(2), m.group(3), m.group(2), y)
    if n.isdigit() and len(n) <= 2:
        v = int(n)
        for _ in range(20):
            nv = v + rng.choice([-1, 1]) * rng.randint(1, max(2, v // 3 + 1))
            if nv >= 1 and nv != v and len(str(nv)) <= 2 and not (v <= 31 and nv > 28):
                return str(nv).zfill(len(n)) if n.startswith('0') else str(nv)
        return str(v + 1)
    digits = [i for i, c in enumerate(n) if c.isdigit()]
    chars = list(n)
    cand = digits[1:] or digits
    for i in rng.sample(cand, min(len(cand), 1 if len(digits) < 4 else 2)):
        chars[i] = rng.choice([d for d in '0123456789' if d != chars[i]])
    return ''.join(chars)


FIRST_NAMES = set("""
Aaron Adam Adrian Agnes Alan Albert Alex Alexander Alexandra Alfred Alice Alicia Amanda Amelia Amy Ana
Andrea Andreas Andrew Angela Angelika Anita Ann Anna Anne Annette Anton Antonio Ben Benjamin Bernd Bernhard
Bettina Bill Birgit Bob Boris Brian Bruno Carl Carla Carlos Carmen Caroline Catherine Charles Charlotte
Chris Christian Christina Christine Christoph Christopher Claire Clara Claudia Daniel Daniela David Dennis
Dieter Dirk Dominik Donald Doris Dorothea Edward Elena Elias Elisabeth Elizabeth Ellen Emily Emma Eric
Erik Eva Fabian Felix Florian Frank Franz Friedrich Gabriel Gabriele Georg George Gerhard Gregor Hannah
Hans Harald Harry Heinz Helen Helena Helmut Henry Herbert Hugo Ingrid Isabel Jack Jacob Jakob James Jan
Jane Jason Javier Jean Jennifer Jens Jessica Joachim Joe Johann Johannes John Jonas Jorge Jose José Josef
Joseph Juan Judith Julia Julian Juliane Julie Jürgen Karin Karl Kate Katharina Katrin Kevin Klaus Kurt
Lara Laura Lea Lena Leon Lisa Lucas Lucia Ludwig Luis Luisa Lukas Manfred Manuel Marc Marco Marcus Maria
Marie Marina Mario Mark Markus Martin Martina Mary Matthew Matthias Max Maximilian Melanie Michael
Michaela Michelle Mike Monika Nadia Nancy Natalie Nicolas Nicole Niklas Nina Noah Olaf Olga Oliver Pablo
Patricia Patrick Paul Paula Pedro Peter Petra Philipp Pierre Rachel Rainer Ralf Ralph Rebecca Richard
Robert Roberto Roland Rosa Ruth Sabine Sam Samuel Sandra Sara Sarah Sebastian Simon Simone Sophie Stefan
Stefanie Steffen Stephan Stephanie Steve Steven Susanne Sven Thomas Tim Timo Tobias Tom Torsten Ulrich
Ursula Uwe Valentina Vanessa Victor Victoria Walter Werner William Wolfgang Yann Yvonne Zoe Barack Hillary
Joe Kamala Emmanuel Olaf Angela Vladimir Xi Boris Donald Justin Jacinda Giorgia Pedro Luiz Jair Alberto
Cristina Nicolás Gustavo Andrés Rodrigo Sergio Diego Pablo Raúl Jesús Francisco Miguel Rafael Ricardo
Fernando Alejandro Eduardo Luca Giovanni Giuseppe Francesca Chiara Matteo Lorenzo François Jacques
Philippe Nathalie Isabelle Sylvie Camille Louis Hugo Marine Ségolène Mikaela Chloe Marcel Kirsten Anja
Tanja Heike Silke Jutta Ute Dagmar Renate Gisela Hildegard Lars Nils Henrik Ole Johan Sven Magnus Ingrid
Tomasz Piotr Krzysztof Anna Katarzyna Jarosław Andrzej Paulina Julia Jakub Wojciech Ivan Dmitri Sergei
Olena Volodymyr Mohamed Muhammad Ahmed Ali Omar Fatima Hassan Yusuf Kenji Yuki Hiroshi Takeshi Wei Li
""".split())


def person_pairs(text):
    """Capitalised word pairs that look like people's names (a known first name, then a
    capitalised word that is not a common word)."""
    pairs = Counter(m.group(0) for m in CAP_PAIR_RE.finditer(text)
                    if m.group(1) in FIRST_NAMES and m.group(2).lower() not in ALL_STOP
                    and m.group(2) not in FIRST_NAMES)
    return [p for p, c in sorted(pairs.items(), key=lambda x: (-x[1], x[0]))]


def change_names(core_txt, mapping, rng):
    """Adds to `mapping` a few people's names of the core, each to another name."""
    ents = person_pairs(core_txt)[:rng.randint(1, 3)]
    names = NAMES2[:]
    rng.shuffle(names)
    for e in ents:
        nm = names.pop()
        mapping[e] = nm
        # the surname alone is often used later in the text
        last = e.split(' ')[1]
        if len(last) > 3 and last.lower() not in ALL_STOP and re.search(r'(?<!\w)%s(?!\w)' % re.escape(last), core_txt):
            mapping.setdefault(last, nm.split(' ')[1])


def t_figures(doc, rng, ctx):
    """Key facts, numbers only: the same page with several figures in the core changed and
    nothing else (title, names, headline kept): next month's report, another product's
    sheet. Teaches that numbers decide where every cue says duplicate."""
    return t_key_facts(doc, rng, ctx, numbers_only=True)


def t_key_facts(doc, rng, ctx, numbers_only=False):
    s = doc.html
    cb = core_bounds(s)
    if not cb:
        return None
    toks = tokenize(s)
    spans = text_spans(s, cb[0], cb[1], toks)
    core_txt = ' '.join(s[a:b] for a, b in spans)
    mapping = {}
    nums = Counter(m.group(0) for m in NUM_RE.finditer(core_txt))
    cand = [n for n in sorted(nums) if len(re.sub(r'\D', '', n)) >= 2 or nums[n] >= 2]
    rng.shuffle(cand)
    for n in cand[:rng.randint(3, 7)]:
        nn = change_number(n, rng)
        if nn != n:
            mapping[n] = nn
    if not numbers_only:
        change_names(core_txt, mapping, rng)
    if len(mapping) < 2 and doc.lang == 'en' and not numbers_only:
        # fall back to frequent capitalised single words (names of things) when few numbers
        singles = Counter(m.group(0) for m in re.finditer(r'(?<=[a-zà-ÿ,;:] )[A-ZÀ-Þ][a-zà-ÿ]{3,}(?![\w])', core_txt))
        for w, c in singles.most_common(3):
            if c >= 2 and w.lower() not in ALL_STOP and w not in mapping:
                mapping[w] = rng.choice(NAMES1)
    if len(mapping) < (3 if numbers_only else 2):
        return None
    keys = sorted(mapping, key=len, reverse=True)
    rx = re.compile(r'(?<![\w.,:/-])(' + '|'.join(re.escape(k) for k in keys) + r')(?![\w:/]|[.,]\d)')
    edits = [(a, b, mapping[w]) for a, b, w in find_in_spans(s, spans, rx)]
    if len(edits) < 3:
        return None
    s2 = apply_edits(s, edits)
    if numbers_only:
        return derive(doc, s2, sibling_url(doc.url, rng), doc.title,
                      step='figures:%d/%d' % (len(mapping), len(edits)))
    # the title and the headings that name the same things change with them
    title = rx.sub(lambda m: mapping[m.group(1)], doc.title or '')
    m = re.search(r'(?is)(<title\b[^>]*>)(.*?)(</title\s*>)', s2)
    if m:
        s2 = s2[:m.start(2)] + rx.sub(lambda mm: mapping[mm.group(1)], m.group(2)) + s2[m.end(2):]
    toks2 = tokenize(s2)
    cb2 = core_bounds(s2)
    hedits = []
    stack = []
    for t in toks2:
        if t[0] == 's' and t[3] in ('h1',):
            stack.append(t)
        elif t[0] == 'e' and t[3] == 'h1' and stack:
            st = stack.pop()
            if cb2 and cb2[0] <= st[1] <= cb2[1]:
                continue
            for a, b in text_spans(s2, st[2], t[1], toks2):
                seg = s2[a:b]
                new = rx.sub(lambda mm: mapping[mm.group(1)], seg)
                if new != seg:
                    hedits.append((a, b, new))
    s2 = apply_edits(s2, hedits)
    # another product / article of the same site: another URL on the same host
    sc, host, path, q, fr = url_parts(doc.url)
    newpath = path
    if re.search(r'\d', path):
        newpath = re.sub(r'\d+', lambda mm: change_number(mm.group(0), rng), path, count=2)
    else:
        for k in keys:
            sk = slugify(k)
            if sk and sk in path.lower() and not sk.isdigit():
                newpath = path.lower().replace(sk, slugify(mapping[k]))
                break
        if newpath == path:
            segs = path.rstrip('/')
            newpath = (segs or '/item') + '-%d' % rng.randint(2, 9) + ('/' if path.endswith('/') and len(path) > 1 else '')
    newq = q
    if newpath == path and q:
        newq = re.sub(r'\d+', lambda mm: change_number(mm.group(0), rng), q, count=1)
    url = urlunsplit((sc, host, newpath, newq, ''))
    if url == doc.url:
        url = add_query(doc.url, 'id=%d' % rng.randint(100, 99999))
    d = derive(doc, s2, url, title, step='key-facts:%d/%d' % (len(mapping), len(edits)))
    return d


def t_quote(x, ydoc, rng, ctx):
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


PAGE_TWO = {'en': 'Page 2', 'de': 'Seite 2', 'fr': 'Page 2', 'es': 'P\u00e1gina 2'}
NEXT_PAGE = {'en': 'Next page', 'de': 'N\u00e4chste Seite', 'fr': 'Page suivante', 'es': 'P\u00e1gina siguiente'}
SPLIT_BLOCKS = ('p', 'ul', 'ol', 'blockquote', 'figure', 'table', 'h2', 'h3', 'div', 'section')


def t_paginated(doc, rng):
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


# ----------------------------------------------------------------------------------------
# cues drawn apart from the label

# Titles a page may carry whatever its content: app shells, CMS defaults, site names.
GENERIC_TITLES = {
    'en': ['Loading\u2026', 'Home', 'Article', 'News', 'Untitled document', 'Read more'],
    'de': ['Wird geladen \u2026', 'Startseite', 'Artikel', 'Nachrichten', 'Aktuelles'],
    'fr': ['Chargement\u2026', 'Accueil', 'Article', 'Actualit\u00e9s'],
    'es': ['Cargando\u2026', 'Inicio', 'Art\u00edculo', 'Noticias'],
}
# How often each cue is redrawn, the same for duplicates and distinct pairs: about half
# of the pairs of every kind keep the cues their transformation gave them.
TITLE_CUES = {'kept': 0.52, 'same': 0.2, 'generic-both': 0.05, 'generic-one': 0.09, 'other': 0.09, 'none': 0.05}
URL_CUES = {'kept': 0.45, 'sibling': 0.3, 'elsewhere': 0.25}
HOST_WORDS = ['daily', 'post', 'times', 'herald', 'wire', 'hub', 'journal', 'digest', 'press', 'report',
              'insider', 'today', 'central', 'world', 'local', 'tribune', 'planet', 'notes', 'review', 'feed']
HOST_ENDINGS = ['com', 'net', 'org', 'de', 'co.uk', 'info', 'news', 'blog', 'fr', 'es', 'io']


def html_title(s):
    m = re.search(r'(?is)<title\b[^>]*>(.*?)</title\s*>', s)
    return norm_ws(html.unescape(m.group(1))) if m else ''


def sibling_url(url, rng):
    """Another page of the same site and template: a number or the last slug changed,
    or another page of a list."""
    sc, host, path, q, fr = url_parts(url)
    how = rng.randrange(3)
    if how == 0 and re.search(r'\d', path + q):
        if re.search(r'\d', path):
            path = re.sub(r'\d+', lambda m: change_number(m.group(0), rng), path, count=1)
        else:
            q = re.sub(r'\d+', lambda m: change_number(m.group(0), rng), q, count=1)
    elif how <= 1 and path.strip('/'):
        segs = path.rstrip('/').split('/')
        words = re.findall(r'[a-z]+', segs[-1].lower()) or ['item']
        rng.shuffle(words)
        segs[-1] = '-'.join(words[:max(1, len(words) - 1)] + [rng.choice(HOST_WORDS)])
        path = '/'.join(segs) + ('/' if path.endswith('/') else '')
    else:
        q = (q + '&' if q else '') + 'page=%d' % rng.randint(2, 9)
    out = urlunsplit((sc, host, path, q, ''))
    return out if out != url else add_query(url, 'p=%d' % rng.randint(2, 999))


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


# ----------------------------------------------------------------------------------------
# pair building

SECONDARY = {
    'mirror': ['small-edit', 'dynamic', 'prepend'],
    'print': ['small-edit', 'prepend'],
    'plain-text': ['small-edit', 'prepend'],
    'prepend': ['dynamic', 'mirror', 'small-edit'],
    'rebrand': ['dynamic', 'small-edit', 'prepend'],
    'syndicated': ['dynamic', 'prepend', 'small-edit'],
    'small-edit': ['mirror', 'dynamic', 'prepend'],
    'dynamic': ['small-edit', 'mirror', 'prepend'],
}
TF = {'mirror': t_mirror, 'print': t_print, 'plain-text': t_plain, 'prepend': t_prepend,
      'rebrand': t_rebrand, 'small-edit': t_small_edit, 'dynamic': t_dynamic}


class Store:
    def __init__(self):
        self.docs = {}        # name -> gz bytes
        self.raw_size = 0

    def name(self, doc):
        """The document's file name (content hash); the bytes are kept until it is stored."""
        if getattr(doc, 'path', None) is None:
            doc.bytes_ = doc.final_bytes()
            doc.path = 'docs/%s.html.gz' % sha(doc.bytes_)[:20]
        return doc.path

    def add(self, doc):
        name = self.name(doc)
        if name not in self.docs:
            self.docs[name] = gz_bytes(doc.bytes_)
        return name

    def size(self):
        return sum(len(v) for v in self.docs.values())


class Builder:
    def __init__(self, seed, pages, split_of, store):
        self.seed = seed
        self.pages = pages
        self.byid = {p.id: p for p in pages}
        self.split_of = split_of
        self.store = store
        self.rows = []
        self.pairset = set()
        self.variants = defaultdict(list)    # page id -> [(kind, doc)] of documents carrying that core
        self.kf_docs = defaultdict(list)     # page id -> key-facts documents (distinct from the page)
        self.derived = Counter()             # page id -> full-size derived documents made from it
        self.nodup = set()                   # frozensets of page ids that must not be negatives
        self.fail = Counter()

    def rng(self, *k):
        return hrng(self.seed, *k)

    def add_pair(self, split, kind, label, da, db, variant='', rng=None):
        pa = self.store.name(da)
        pb = self.store.name(db)
        if pa == pb:
            self.fail['identical:' + kind] += 1
            return False
        key = frozenset((pa, pb))
        if key in self.pairset:
            self.fail['duplicate-pair:' + kind] += 1
            return False
        if da.url == db.url:
            self.fail['same-url:' + kind] += 1
            return False
        self.pairset.add(key)
        self.store.add(da)
        self.store.add(db)
        rng = rng or self.rng('order', kind, pa, pb)
        if rng.random() < 0.5:
            da, db = db, da
        q = ''
        if rng.random() < QUERY_RATE:
            q = title_words(self.byid[da.source].ctitle, da.lang, rng)
        self.rows.append(dict(url_a=da.url, url_b=db.url, html_a=da.path, html_b=db.path, label=label,
                              kind=kind, split=split, source_a=da.source, source_b=db.source,
                              query=q, variant=variant, cues='', docs=(da, db)))
        return True

    def room(self, p):
        """Whether page p may give one more full-size derived document (size budget)."""
        return self.derived[p.id] < max(2, int(DERIVED_BUDGET / max(p.gz, 1)))

    def count(self, split, kind):
        return sum(1 for r in self.rows if r['split'] == split and r['kind'] == kind)


def eligible(p, kind):
    if kind in ('print', 'plain-text'):
        return len(p.core_text) >= 300 and (p.coll == 'readability' or p.core_loc is not None)
    if kind in ('prepend', 'small-edit', 'key-facts'):
        return p.core_loc is not None and len(p.core_text) >= 300
    if kind in ('syndicated-x', 'quote-x'):
        return len(p.core_text) >= 300 and (p.coll == 'readability' or p.core_loc is not None)
    if kind == 'template-y':
        return p.core_loc is not None and p.body_text_len - len(p.core_text) >= 150 \
            and len(p.core_text) >= 400 and len(p.core_text) >= 0.15 * p.body_text_len \
            and p.outside_par <= max(600, 0.3 * len(p.core_text))
    if kind == 'quote-y':
        return p.core_loc is not None and p.body_text_len - len(p.core_text) >= 150 \
            and p.outside_par <= max(600, 0.3 * len(p.core_text))
    return len(p.core_text) >= 200 or p.body_text_len >= 300


def cycle(lst, rng, weigh=True, first=()):
    """Endless seeded walk over lst; big pages come round less often (size budget).
    Pages in `first` come first (pages of sites with several pages: their variants also
    make same-site pairs)."""
    lst = lst[:]
    head = [x for x in lst if x.id in first]
    rng.shuffle(head)
    for x in head:
        yield x
    while True:
        rng.shuffle(lst)
        for x in lst:
            if weigh and x.gz > REF_GZ and rng.random() > REF_GZ / x.gz:
                continue
            yield x


def attempts(B, split, kind, el, want, first=(), needs_room=True):
    """Seeded tries at pages of `el` until the split has `want` pairs of `kind`, or
    6 × want tries; yields each page with its own random stream and the try's number.
    Pages without room for one more full-size derived document are passed over when
    `needs_room`."""
    it = cycle(el, B.rng(split, kind, 'order'), first=first)
    tries = 0
    while B.count(split, kind) < want and tries < want * 6 and el:
        tries += 1
        p = next(it)
        if needs_room and not B.room(p):
            continue
        yield p, B.rng(split, kind, p.id, tries), tries


def build_split(B, split, pages, targets):
    seed = B.seed
    titles = sorted({p.ctitle for p in pages if p.ctitle})
    ctx = {'titles': titles}
    ids = [p.id for p in pages]

    def ok_negative(a, b):
        return a.id != b.id and frozenset((a.id, b.id)) not in B.nodup

    def apply(kind, doc, rng):
        return TF[kind](doc, rng, ctx)

    def secondary_for(kind, rng):
        if rng.random() < SECONDARY_RATE:
            return rng.choice(SECONDARY[kind])
        return ''

    # ---- positives built from one page
    gsize = Counter(p.group for p in pages)
    multi = {p.id for p in pages if gsize[p.group] > 1}
    for kind in ['mirror', 'print', 'plain-text', 'prepend', 'rebrand', 'small-edit', 'dynamic']:
        el = [p for p in pages if eligible(p, kind)]
        full = kind not in ('print', 'plain-text')
        first = multi if kind in ('print', 'plain-text', 'prepend', 'small-edit', 'dynamic') else ()
        for p, r, tries in attempts(B, split, kind, el, targets[kind], first, needs_room=full):
            base = original(p)
            d = apply(kind, base, r)
            if d is None:
                B.fail['%s:%s' % (kind, 'n/a')] += 1
                continue
            sec = secondary_for(kind, r)
            if sec:
                d2 = apply(sec, d, r)
                if d2 is None:
                    sec = ''
                else:
                    d = d2
            other = base
            if kind == 'dynamic' and r.random() < 0.2:
                o2 = t_dynamic(base, B.rng(split, kind, p.id, tries, 'other'), ctx)
                if o2 is not None:
                    other = o2
            if B.add_pair(split, kind, 1, other, d, sec):
                B.variants[p.id].append((kind, d))
                if full:
                    B.derived[p.id] += 1 + (other is not base)

    # ---- syndication: X's core in Y's template; the same documents give same-template negatives
    xs = [p for p in pages if eligible(p, 'syndicated-x')]
    ys = [p for p in pages if eligible(p, 'template-y')]
    rng = B.rng(split, 'synd', 'order')
    itx, ity = cycle(xs, rng), cycle(ys, rng)
    ity_lang = {}
    ys_lang = defaultdict(list)
    for y in ys:
        ys_lang[y.lang].append(y)
    for lg in sorted(ys_lang):
        if len(ys_lang[lg]) >= 3:
            ity_lang[lg] = cycle(ys_lang[lg], B.rng(split, 'synd', 'order', lg))
    tries = [0]

    def transplants(st_cap):
        """X's core in Y's template until the syndicated target and st_cap same-template pairs."""
        while (B.count(split, 'syndicated') < targets['syndicated'] or
               B.count(split, 'same-template') < st_cap) and tries[0] < 8 * (targets['syndicated'] + st_cap) \
                and xs and ys:
            tries[0] += 1
            x = next(itx)
            y = next(ity_lang[x.lang]) if x.lang in ity_lang and rng.random() < 0.85 else next(ity)
            if not ok_negative(x, y) or x.group == y.group or not B.room(y):
                continue
            r = B.rng(split, 'synd', x.id, y.id, tries[0])
            t = transplant(x, original(y), r, ctx)
            if t is None:
                B.fail['syndicated:n/a'] += 1
                continue
            sec = ''
            if r.random() < SECONDARY_RATE:
                sec = r.choice(SECONDARY['syndicated'])
                t2 = apply(sec, t, r)
                if t2 is None:
                    sec = ''
                else:
                    t = t2
            B.derived[y.id] += 1
            if B.count(split, 'syndicated') < targets['syndicated']:
                if B.add_pair(split, 'syndicated', 1, original(x), t, sec):
                    B.variants[x.id].append(('syndicated', t))
            if B.count(split, 'same-template') < st_cap:
                B.add_pair(split, 'same-template', 0, original(y), t, sec)

    transplants(int(0.8 * targets['same-template']))

    # print versions of two different pages share the print template: same-template too
    prints = [(pid, d) for pid in ids for k, d in B.variants.get(pid, []) if k == 'print' and not d.steps[-1].startswith(('small', 'prepend'))]
    rng2 = B.rng(split, 'print-pairs')
    rng2.shuffle(prints)
    by_style = defaultdict(list)
    for pid, d in prints:
        by_style[d.steps[0]].append((pid, d))
    for style in sorted(by_style):
        lst = by_style[style]
        for i in range(0, len(lst) - 1, 2):
            if B.count(split, 'same-template') >= targets['same-template']:
                break
            (pa, da), (pb, db) = lst[i], lst[i + 1]
            if ok_negative(B.byid[pa], B.byid[pb]):
                B.add_pair(split, 'same-template', 0, da, db, '')
    transplants(targets['same-template'])

    # ---- key facts changed: distinct documents that look the same
    el = [p for p in pages if eligible(p, 'key-facts')]
    want = targets['key-facts']
    for p, r, _ in attempts(B, split, 'key-facts', el, want, multi):
        base = original(p)
        k = t_key_facts(base, r, ctx)
        if k is None:
            B.fail['key-facts:n/a'] += 1
            continue
        sec = ''
        if r.random() < 0.15:
            sec = r.choice(['dynamic', 'small-edit'])
            k2 = apply(sec, k, r)
            if k2 is None:
                sec = ''
            else:
                k = k2
        B.add_pair(split, 'key-facts', 0, base, k, sec)
        B.kf_docs[p.id].append(k)
        B.derived[p.id] += 1
        # the changed page against another (duplicate) version of the original
        vs = [(kind, d) for kind, d in B.variants.get(p.id, []) if kind in ('dynamic', 'small-edit', 'prepend', 'mirror')]
        if vs and r.random() < 0.6 and B.count(split, 'key-facts') < want:
            kind, d = r.choice(vs)
            B.add_pair(split, 'key-facts', 0, d, k, kind)

    # ---- figures changed, nothing else: a second kind where numbers decide
    for p, r, _ in attempts(B, split, 'figures', el, targets['figures']):
        base = original(p)
        k = t_figures(base, r, ctx)
        if k is None:
            B.fail['figures:n/a'] += 1
            continue
        # against a duplicate version of the original as often as not: the transformations
        # that make duplicates must not make the changed figures look alike
        vs = [(kind, d) for kind, d in B.variants.get(p.id, [])
              if kind in ('dynamic', 'small-edit', 'mirror', 'print', 'prepend', 'plain-text')]
        sec = ''
        if vs and r.random() < 0.5:
            sec, base = r.choice(vs)
        if B.add_pair(split, 'figures', 0, base, k, sec):
            B.derived[p.id] += 1

    # ---- a page that quotes one paragraph of another
    xs = [p for p in pages if eligible(p, 'quote-x') and p.paras]
    ys = [p for p in pages if eligible(p, 'quote-y')]
    ys_by_lang = defaultdict(list)
    for y in ys:
        ys_by_lang[y.lang].append(y)
    rng = B.rng(split, 'quote', 'order')
    itx = cycle(xs, rng)
    tries = 0
    want = targets['quote']
    while B.count(split, 'quote') < want and tries < want * 6 and xs and ys:
        tries += 1
        x = next(itx)
        r = B.rng(split, 'quote', x.id, tries)
        pool = ys_by_lang.get(x.lang) if len(ys_by_lang.get(x.lang, [])) > 3 and r.random() < 0.85 else ys
        y = r.choice(pool)
        if y.gz > REF_GZ and r.random() > REF_GZ / y.gz:
            y = r.choice(pool)
        if not ok_negative(x, y) or not B.room(y):
            continue
        q = t_quote(x, original(y), r, ctx)
        if q is None:
            B.fail['quote:n/a'] += 1
            continue
        sec = ''
        if r.random() < 0.12:
            sec = 'dynamic'
            q2 = t_dynamic(q, r, ctx)
            if q2 is None:
                sec = ''
            else:
                q = q2
        if B.add_pair(split, 'quote', 0, original(x), q, sec):
            B.derived[y.id] += 1

    # ---- real pages of one site (different articles, same template)
    groups = defaultdict(list)
    for p in pages:
        groups[p.group].append(p)
    base_pairs = []
    for g in sorted(groups):
        lst = sorted(groups[g], key=lambda p: p.id)
        for i in range(len(lst)):
            for j in range(i + 1, len(lst)):
                if ok_negative(lst[i], lst[j]):
                    base_pairs.append((lst[i], lst[j]))
    rng = B.rng(split, 'same-site')
    rng.shuffle(base_pairs)
    want = targets['same-site']
    same_host = ('dynamic', 'small-edit', 'prepend', 'print', 'plain-text')

    def host_docs(p):
        out = [('', original(p))]
        out += [(k, d) for k, d in B.variants.get(p.id, []) if k in same_host]
        out += [('key-facts', d) for d in B.kf_docs.get(p.id, [])]
        return out
    combos = []
    for a, b in base_pairs:
        cs = []
        for ka, da in host_docs(a):
            for kb, db in host_docs(b):
                fa, fb = ka in ('print', 'plain-text'), kb in ('print', 'plain-text')
                if fa != fb and ka and kb:
                    continue      # a print version against a dynamic version: skip odd mixes
                cs.append((ka, da, kb, db))
        first, rest = cs[0], cs[1:]
        B.rng(split, 'same-site', a.id, b.id).shuffle(rest)
        combos.append([first] + rest)
    for rnd in range(max([len(c) for c in combos] or [0])):
        for cs in combos:
            if B.count(split, 'same-site') >= want:
                break
            if rnd < len(cs):
                ka, da, kb, db = cs[rnd]
                var = '+'.join(x for x in sorted({ka, kb}) if x)
                B.add_pair(split, 'same-site', 0, da, db, var)

    # ---- unrelated pages (half of them same language and similar length)
    want = targets['unrelated']
    rng = B.rng(split, 'unrelated')
    allp = sorted(pages, key=lambda p: p.id)
    by_lang = defaultdict(list)
    for p in allp:
        by_lang[p.lang].append(p)
    tries = 0
    while B.count(split, 'unrelated') < want and tries < want * 8:
        tries += 1
        a = rng.choice(allp)
        hard = rng.random() < 0.5
        if hard:
            cands = [p for p in by_lang[a.lang] if p.id != a.id and
                     0.6 <= (len(p.core_text) + 1) / (len(a.core_text) + 1) <= 1.6]
            if not cands:
                continue
            b = rng.choice(cands)
        else:
            b = rng.choice(allp)
        if not ok_negative(a, b):
            continue
        da, db = original(a), original(b)
        var = ''
        if rng.random() < 0.3 and B.variants.get(a.id):
            k, da = rng.choice(B.variants[a.id])
            var = k
        B.add_pair(split, 'unrelated', 0, da, db, var)

    # ---- real near-duplicate source pages (rare) are positives
    for a_id, b_id in sorted(B.real_dups):
        if a_id in B.byid and b_id in B.byid and B.split_of.get(a_id) == split:
            da, db = original(B.byid[a_id]), original(B.byid[b_id])
            if da.url == db.url:   # the same page fetched twice (e.g. before/after comments loaded)
                db.url = add_query(db.url, 'utm_source=feed')
            B.add_pair(split, 'dynamic', 1, da, db, 'real-pair')


def build_paginated(B, split, pages, want):
    """Pages 1 and 2 of one article (label 0); a fifth of the time page 1 fetched again
    (`dynamic`), so that page 1 is not always byte for byte the template it shares."""
    el = [p for p in pages if p.core_loc is not None and len(p.core_text) >= 900]
    ctx = {'titles': sorted({p.ctitle for p in pages if p.ctitle})}
    it = cycle(el, B.rng('paginated', split, 'order'))
    tries = 0
    while B.count(split, 'paginated') < want and tries < want * 6 and el:
        tries += 1
        p = next(it)
        r = B.rng('paginated', split, p.id, tries)
        made = t_paginated(original(p), r)
        if made is None:
            B.fail['paginated:n/a'] += 1
            continue
        page1, page2 = made
        var = ''
        if r.random() < 0.2:
            again = t_dynamic(page1, r, ctx)
            if again is not None:
                page1, var = again, 'dynamic'
        B.add_pair(split, 'paginated', 0, page1, page2, var)


# ----------------------------------------------------------------------------------------

# ----------------------------------------------------------------------------------------
# pairs whose truth depends on rendering: client-rendered pages, app shells, hidden text.
#
# Built after every other kind, from their own random streams (hrng(seed, 'scripts', ...)),
# and written after the other rows: the pairs above stay byte-identical.

SHELL_PAIR_RATE = 0.25      # client-rendered pairs whose other side is a script-built shell too
SCRIPT_TARGETS = {'client-rendered': 150, 'app-shell': 150, 'hidden-stuffing': 150}
SCRIPT_LABELS = {'client-rendered': 1, 'app-shell': 0, 'hidden-stuffing': 1}
SCRIPT_TEST_MIN = 36
SCRIPT_DOC_BYTES = 45_000     # a page gives at most max(1, this / its gzip size) full-size documents here (at most 3)

PLACEHOLDERS = {
    'en': ['Loading\u2026', 'Loading article\u2026', 'Please wait\u2026', 'Loading, please wait', 'One moment\u2026',
           'Fetching the latest story\u2026', 'Loading content', ''],
    'de': ['Wird geladen \u2026', 'Artikel wird geladen \u2026', 'Bitte warten \u2026', 'Inhalt wird geladen', ''],
    'fr': ['Chargement\u2026', 'Chargement de l\u2019article\u2026', 'Veuillez patienter\u2026', ''],
    'es': ['Cargando\u2026', 'Cargando artículo\u2026', 'Espere, por favor\u2026', ''],
    'it': ['Caricamento\u2026', 'Attendere prego\u2026', ''],
    'pt': ['Carregando\u2026', 'Aguarde\u2026', ''],
    'nl': ['Laden\u2026', 'Even geduld\u2026', ''],
    'pl': ['Ładowanie\u2026', 'Proszę czekać\u2026', ''],
    'zh': ['加载中\u2026', '正在加载\u2026', ''],
    'ja': ['読み込み中\u2026', 'しばらくお待ちください\u2026', ''],
}
NOSCRIPT = {
    'en': ['You need to enable JavaScript to run this app.',
           'We\u2019re sorry but {s} doesn\u2019t work properly without JavaScript enabled. Please enable it to continue.',
           'Please enable JavaScript to read this article.'],
    'de': ['Bitte aktivieren Sie JavaScript, um {s} zu nutzen.', 'JavaScript ist deaktiviert.'],
    'fr': ['Veuillez activer JavaScript pour afficher {s}.'],
    'es': ['Activa JavaScript para ver {s}.'],
}
FOOTER_L10N = {
    'en': ('All rights reserved.', ['About us', 'Contact', 'Privacy policy', 'Terms of use', 'Advertise', 'Careers']),
    'de': ('Alle Rechte vorbehalten.', ['Über uns', 'Kontakt', 'Datenschutz', 'Impressum', 'AGB', 'Werbung']),
    'fr': ('Tous droits réservés.', ['À propos', 'Contact', 'Confidentialité', 'Mentions légales', 'Publicité']),
    'es': ('Todos los derechos reservados.', ['Quiénes somos', 'Contacto', 'Privacidad', 'Aviso legal', 'Publicidad']),
    'it': ('Tutti i diritti riservati.', ['Chi siamo', 'Contatti', 'Privacy', 'Note legali']),
    'pt': ('Todos os direitos reservados.', ['Quem somos', 'Contato', 'Privacidade', 'Termos de uso']),
}
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
SHELL_CLASSES = ['kw', 'seo-text', 'tags-extra', 'related-terms', 'hidden-keywords', 'ft-links', 'x-meta',
                 'search-terms', 'sitemap-terms', 'tagline-cloud', 'footer-seo', 'kwd', 'txt-extra']
APP_NAMES = ['reader', 'news-app', 'frontend', 'web', 'client', 'story-app', 'pwa', 'spa', 'site']


def js_json(obj, ascii_only=True):
    """JSON that is safe inside an inline <script> (no '<', '>' or '&' characters)."""
    s = json.dumps(obj, ensure_ascii=ascii_only, separators=(',', ':'))
    return s.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026') \
        .replace('\u2028', '\\u2028').replace('\u2029', '\\u2029')


def b64(obj):
    return base64.b64encode(json.dumps(obj, ensure_ascii=False, separators=(',', ':')).encode('utf-8')).decode('ascii')


def chunked(s, rng, lo=60, hi=400):
    out, i = [], 0
    while i < len(s):
        k = rng.randint(lo, hi)
        out.append(s[i:i + k])
        i += k
    return out


def core_blocks(p):
    """The core text as (tag, text) blocks: short lines without closing punctuation are subheadings."""
    out = []
    for line in (p.core_text or '').split('\n'):
        line = line.strip()
        if len(line) < 2:
            continue
        head = len(line) <= 80 and not re.search(r'[.!?:;,\u3002\uff01\uff1f"\u201d\u2019)]$', line) \
            and len(line.split()) <= 12 and out
        out.append(('h2' if head else 'p', line))
    return out


def article_payload(p, schema, rng, title=None):
    """The article (title and core) as the data a client-side app would receive."""
    title = title or p.ctitle or p.title or p.site
    byline = p.byline if p.byline and len(p.byline) < 120 else (rng.choice(NAMES2) if rng.random() < 0.4 else '')
    date, ymd = rand_date(rng, p.lang, 2015, 2024)
    iso = '%04d-%02d-%02dT%02d:%02d:00Z' % (ymd[0], ymd[1], ymd[2], rng.randint(5, 22), rng.randint(0, 59))
    if schema in ('html', 'graphql'):
        body = _print_body(p)
        if len(extract_text(body)) < max(200, 0.7 * len(p.core_text)):
            body = ''.join('<%s>%s</%s>' % (t, esc(x), t) for t, x in core_blocks(p))
        if schema == 'html':
            return {'t': title, 'a': byline, 'h': body, 'id': rng.randint(10000, 9999999)}
        return {'data': {'article': {'id': 'A%d' % rng.randint(100000, 999999), 'title': title,
                                     'author': {'name': byline} if byline else None, 'publishedAt': iso,
                                     'contentHtml': body, 'section': rng.choice(['news', 'features', 'blog', 'story'])}}}
    blocks = core_blocks(p)
    if schema == 'blocks':
        return {'title': title, 'byline': byline, 'published': date,
                'blocks': [{'type': t, 'text': x} for t, x in blocks]}
    return {'headline': title, 'author': byline, 'date': iso[:10], 'body': [[t, x] for t, x in blocks]}


# client-side renderers, one per payload schema; %MOUNT% is the mount element's id
RENDER_JS = {
    'blocks': '''function render(d){
  var root=document.getElementById('%MOUNT%');if(!root)return;
  var art=document.createElement('article');art.className='%ACLS%';
  var h=document.createElement('h1');h.textContent=d.title;art.appendChild(h);
  if(d.byline||d.published){var m=document.createElement('p');m.className='meta';
    m.textContent=[d.byline,d.published].filter(Boolean).join(' \\u00b7 ');art.appendChild(m);}
  for(var i=0;i<d.blocks.length;i++){var b=d.blocks[i],e=document.createElement(b.type);e.textContent=b.text;art.appendChild(e);}
  while(root.firstChild)root.removeChild(root.firstChild);
  root.appendChild(art);root.removeAttribute('aria-busy');%TITLE%
}''',
    'tuples': '''const esc=s=>String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function render(d){
  const el=document.getElementById('%MOUNT%');if(!el)return;
  el.innerHTML=`<article class="%ACLS%"><header><h1>${esc(d.headline)}</h1>`+
    (d.author?`<p class="byline">${esc(d.author)} <time>${esc(d.date)}</time></p>`:'')+'</header>'+
    d.body.map(([t,x])=>`<${t}>${esc(x)}</${t}>`).join('')+'</article>';
  el.classList.remove('is-loading');%TITLE%
}''',
    'html': '''function render(d){
  var el=document.getElementById('%MOUNT%');if(!el)return;
  var t=document.createElement('div');t.textContent=d.t;
  el.innerHTML='<div class="%ACLS%"><h1 class="entry-title">'+t.innerHTML+'</h1>'+
    (d.a?'<div class="entry-author">'+d.a.replace(/</g,'&lt;')+'</div>':'')+'<div class="entry-content">'+d.h+'</div></div>';%TITLE%
}''',
    'graphql': '''function render(res){
  var a=res&&res.data&&res.data.article;var el=document.getElementById('%MOUNT%');if(!a||!el)return;
  var f=document.createDocumentFragment(),h=document.createElement('h1');h.textContent=a.title;f.appendChild(h);
  if(a.author){var by=document.createElement('address');by.textContent=a.author.name;f.appendChild(by);}
  var body=document.createElement('section');body.className='%ACLS%';body.innerHTML=a.contentHtml;f.appendChild(body);
  el.textContent='';el.appendChild(f);el.setAttribute('data-loaded','true');%TITLE%
}''',
}
TITLE_JS = {'blocks': 'document.title=d.title+%SUFFIX%;', 'tuples': 'document.title=d.headline+%SUFFIX%;',
            'html': 'document.title=d.t+%SUFFIX%;', 'graphql': 'document.title=a.title+%SUFFIX%;'}
B64_JS = ('function unb64(s){var b=atob(s),u=new Uint8Array(b.length);'
          'for(var i=0;i<b.length;i++)u[i]=b.charCodeAt(i);return new TextDecoder(\'utf-8\').decode(u);}')


MOUNT_TOKEN = '\x00twp:mount\x00'


class Shell:
    """One app-shell instance: chrome, placeholder, script style and data delivery. The same
    instance with two articles gives two pages whose fetched HTML differs only in the data."""

    def __init__(self, page, rng, deliveries, hybrid_ok=True):
        self.page = page
        self.lang = page.lang
        L = loc(page.lang)
        self.rng_key = rng.getrandbits(32)
        # the page's own template around the mount point: only where the located core is the
        # article (no long paragraphs left outside it), so the shell's fetched text is boilerplate
        hybrid_ok = hybrid_ok and page.core_loc is not None and len(page.core_text) >= 0.3 * page.body_text_len \
            and page.outside_par <= 0.3 * len(page.core_text)
        self.headline = False
        self.tpl = rng.choices(['react-root', 'vue-app', 'skeleton', 'plain-ajax', 'hybrid'],
                               [3, 3, 2, 2, 4 if hybrid_ok else 0])[0]
        self.delivery = rng.choice(deliveries)
        if self.tpl == 'plain-ajax' and self.delivery == 'fetch-json':
            self.delivery = 'xhr-json'
        self.schema = rng.choice(['blocks', 'tuples', 'html', 'graphql'])
        self.timing = rng.choices(['dcl', 'dcl-timeout', 'load', 'ready-state'], [4, 3, 1, 2])[0]
        self.delay = rng.randint(100, 800)
        self.wrap = rng.choice(['iife', 'bang', 'plain', 'module'])
        self.mount = rng.choice(['root', 'app', 'main-content', 'article-root', 'story', '__next', 'page-app'])
        self.acls = rng.choice(['article', 'story-body', 'post', 'c-article', 'entry', 'ArticleBody', 'content-body'])
        self.title_mode = rng.choices(['generic', 'article'], [3, 2])[0]
        self.ascii = rng.random() < 0.6
        ph = PLACEHOLDERS.get(self.lang, PLACEHOLDERS['en'])
        self.placeholder = rng.choice(ph)
        ns = NOSCRIPT.get(self.lang, NOSCRIPT['en'])
        self.noscript = rng.choice(ns).format(s=page.site or 'this site') if rng.random() < 0.6 else ''
        self.bundle = '%x' % rng.getrandbits(40)
        self.app = rng.choice(APP_NAMES)
        self.host = (urlsplit(effective_url(page.url)).hostname or '').lower() or 'www.example.org'
        self.site = page.site or site_from(page.url, page.title)
        self.title_sep = rng.choice([' | ', ' - ', ' \u2013 ', ' \u00b7 '])
        self.dark = rng.random() < 0.2
        self.nav = self._nav(rng, L)
        self.footer = self._footer(rng)
        self.hybrid_base = self._hybrid_base(rng) if self.tpl == 'hybrid' else None
        if self.tpl == 'hybrid' and self.hybrid_base is None:
            self.tpl = 'react-root'
        if self.tpl == 'hybrid':
            # the page may already have an element with that id (skip-link targets are common)
            while re.search(r'\bid\s*=\s*["\']?%s(?![\w-])' % re.escape(self.mount), self.hybrid_base):
                self.mount += '-app'
        if self.tpl == 'hybrid' and self.delivery in ('fetch-json', 'xhr-json') and BASE_RE.search(page.text):
            self.delivery = 'attr-b64'     # a <base href> would send the relative data URL elsewhere
        if self.tpl == 'hybrid' and self.wrap == 'plain':
            self.wrap = 'iife'        # no globals next to the page's own scripts
        self.url_style = rng.choice(['app', 'mobile', 'query', 'appsub', 'story', 'articles'])
        self.qparam = rng.choice(['view=app', 'client=1', 'spa=1', 'render=client'])

    # ---- chrome

    def _real_fragment(self, tags, min_links, max_text):
        """The page's own nav / footer element (cleaned), if it has a usable one."""
        p = self.page
        tree = Tree(p.text)
        for el in tree.els:
            if el.tag not in tags or el.hidden or el.ce is None:
                continue
            inner = p.text[el.ie:el.ce]
            if len(inner) > 60000:
                continue
            frag = clean_fragment(inner, p.url)
            txt = extract_text(frag)
            nl = len(re.findall(r'<a\s', frag))
            if nl >= min_links and 20 <= len(txt) <= max_text and len(frag) < 12000 \
                    and not re.search(r'<h[12][\s>]', frag):
                return frag
        return ''

    def _nav(self, rng, L):
        real = ''
        if rng.random() < 0.6:
            real = self._real_fragment(('nav',), 3, 1500) or self._real_fragment(('header',), 3, 1500)
        if real:
            return real
        cats = L['cats'].split()
        items = rng.sample(cats, min(len(cats), rng.randint(4, 8)))
        return '<ul class="nav-list">%s</ul>' % ''.join(
            '<li><a href="/%s/">%s</a></li>' % (slugify(c), esc(c)) for c in items)

    def _footer(self, rng):
        real = self._real_fragment(('footer',), 1, 1500) if rng.random() < 0.5 else ''
        if real:
            return real
        rights, links = FOOTER_L10N.get(self.lang, FOOTER_L10N['en'])
        ls = rng.sample(links, min(len(links), rng.randint(3, 5)))
        return '<p>&copy; %d %s. %s</p><ul class="footer-links">%s</ul>' % (
            rng.randint(2018, 2025), esc(self.site), rights,
            ''.join('<li><a href="/%s">%s</a></li>' % (slugify(x), esc(x)) for x in ls))

    def _hybrid_base(self, rng):
        """The real page with its core replaced by the mount element (and the headline emptied)."""
        p = self.page
        s = p.marked()
        cb = core_bounds(s)
        if not cb:
            return None
        s = s[:cb[0] - len(MARK_S)] + MOUNT_TOKEN + s[cb[1] + len(MARK_E):]
        # headings outside the core that carry the title are filled in by the script
        tw = set(w.lower() for w in re.findall(r'\w{3,}', p.title or ''))
        edits = []
        if tw:
            toks = tokenize(s)
            stack = []
            for t in toks:
                if t[0] == 's' and t[3] in ('h1', 'h2'):
                    stack.append(t)
                elif t[0] == 'e' and t[3] in ('h1', 'h2') and stack:
                    st = stack.pop()
                    words = set(w.lower() for w in re.findall(r'\w{3,}', extract_text(s[st[2]:t[1]])))
                    if words and len(words & tw) >= max(1, 0.5 * len(tw)) and len(edits) < 2:
                        edits.append((st[1], t[2], '<%s class="js-headline"></%s>' % (st[3], st[3])))
        s = apply_edits(s, edits)
        self.headline = bool(edits)
        return s

    # ---- pieces of the page

    def mount_html(self, data_attr=''):
        ph = esc(self.placeholder)
        if self.tpl == 'skeleton' or (self.tpl == 'hybrid' and self.rng_key % 3 == 0):
            lines = ''.join('<div class="sk-line" style="width:%d%%"></div>' % (60 + (self.rng_key >> (i * 3)) % 40)
                            for i in range(6))
            inner = '<div class="sk-title"></div>%s%s' % (lines, '<span class="sr-only">%s</span>' % ph if ph else '')
            cls = 'skeleton'
        elif self.tpl == 'vue-app':
            inner = '<div class="page-loader"><span class="spinner" role="progressbar"></span>%s</div>' % (
                '<p>%s</p>' % ph if ph else '')
            cls = 'app-wrapper'
        elif self.tpl == 'plain-ajax':
            inner = '<p class="loading">%s</p>' % (ph or '&nbsp;')
            cls = 'content'
        else:
            inner = '<div class="app-loading"><div class="spinner"></div>%s</div>' % (
                '<span class="loading-text">%s</span>' % ph if ph else '')
            cls = 'app-root'
        return '<div id="%s" class="%s" aria-busy="true"%s>%s</div>' % (self.mount, cls, data_attr, inner)

    def script(self, payload, sibling):
        """Inline script(s) that render the article; payload is the data, sibling the JSON file name."""
        suffix = json.dumps(self.title_sep + self.site, ensure_ascii=True)
        rjs = RENDER_JS[self.schema].replace('%MOUNT%', self.mount).replace('%ACLS%', self.acls)
        tjs = TITLE_JS[self.schema].replace('%SUFFIX%', suffix)
        if self.tpl == 'hybrid' and getattr(self, 'headline', False):
            key = {'blocks': 'd.title', 'tuples': 'd.headline', 'html': 'd.t', 'graphql': 'a.title'}[self.schema]
            tjs += "var hs=document.querySelectorAll('.js-headline');for(var k=0;k<hs.length;k++)hs[k].textContent=%s;" % key
        rjs = rjs.replace('%TITLE%', tjs)
        pre = ''
        extra = ''
        dv = self.delivery
        if dv == 'inline-json':
            pre = 'var __INITIAL_STATE__=%s;' % js_json(payload, self.ascii)
            get = 'render(__INITIAL_STATE__)'
        elif dv == 'json-script':
            extra = '<script id="__APP_DATA__" type="application/json">%s</script>\n' % js_json(payload, self.ascii)
            get = "render(JSON.parse(document.getElementById('__APP_DATA__').textContent))"
        elif dv == 'inline-b64':
            pre = B64_JS + 'var __S="%s";' % b64(payload)
            get = 'render(JSON.parse(unb64(__S)))'
        elif dv == 'inline-chunks':
            if self.ascii:
                parts = chunked(b64(payload), random.Random(self.rng_key), 64, 256)
                pre = B64_JS + 'var __C=[%s];' % ','.join('"%s"' % c for c in parts)
                get = "render(JSON.parse(unb64(__C.join(''))))"
            else:
                parts = chunked(js_json(payload, True), random.Random(self.rng_key), 80, 300)
                pre = 'var __C=[%s];' % ',\n'.join(js_json(c, True) for c in parts)
                get = "render(JSON.parse(__C.join('')))"
        elif dv == 'attr-b64':
            pre = B64_JS
            get = "render(JSON.parse(unb64(document.getElementById('%s').getAttribute('data-state'))))" % self.mount
        elif dv == 'fetch-json':
            get = ("fetch('%s',{headers:{'Accept':'application/json'}}).then(function(r){return r.json();})"
                   ".then(render).catch(function(e){var el=document.getElementById('%s');"
                   "if(el)el.setAttribute('data-error',String(e));})" % (sibling, self.mount))
        elif dv == 'xhr-json':
            get = ("var x=new XMLHttpRequest();x.open('GET','%s');x.onload=function(){if(x.status==200)"
                   "render(JSON.parse(x.responseText));};x.send()" % sibling)
        else:
            raise ValueError(dv)
        if self.timing == 'dcl':
            boot = "document.addEventListener('DOMContentLoaded',function(){%s;});" % get
        elif self.timing == 'dcl-timeout':
            boot = "document.addEventListener('DOMContentLoaded',function(){setTimeout(function(){%s;},%d);});" % (
                get, self.delay)
        elif self.timing == 'load':
            boot = "window.addEventListener('load',function(){%s;});" % get
        else:
            boot = ("function boot(){%s;}\nif(document.readyState==='loading')"
                    "document.addEventListener('DOMContentLoaded',boot);else boot();" % get)
        stub = ("window.dataLayer=window.dataLayer||[];window.__APP__={name:'%s',build:'%s',locale:'%s'};"
                % (self.app, self.bundle, self.lang if self.lang != 'und' else 'en'))
        code = '%s\n%s\n%s\n%s' % (stub, pre, rjs, boot) if pre else '%s\n%s\n%s' % (stub, rjs, boot)
        if self.wrap == 'iife':
            code = '(function(){\n"use strict";\n%s\n})();' % code if self.schema != 'tuples' else '(function(){\n%s\n})();' % code
            tag = '<script>'
        elif self.wrap == 'bang':
            code = '!function(){\n%s\n}();' % code
            tag = '<script>'
        elif self.wrap == 'module':
            tag = '<script type="module">'
        else:
            tag = '<script>'
        return extra + tag + '\n' + code + '\n</script>'

    def css(self):
        bg, fg = ('#111', '#eee') if self.dark else ('#fff', '#222')
        return ('<style>*{box-sizing:border-box}body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",'
                'Roboto,sans-serif;background:%s;color:%s}header.site-header,footer.site-footer{padding:12px 24px}'
                '.nav-list,.footer-links{list-style:none;display:flex;gap:16px;margin:0;padding:0}'
                '#%s{max-width:760px;margin:24px auto;padding:0 16px;min-height:60vh}'
                '.spinner{width:32px;height:32px;border:3px solid #ccc;border-top-color:#0a66c2;border-radius:50%%;'
                'animation:spin 1s linear infinite}@keyframes spin{to{transform:rotate(360deg)}}'
                '.sk-title{height:32px;width:70%%;background:#e5e5e5;margin-bottom:16px}'
                '.sk-line{height:14px;background:#eee;margin:10px 0}'
                '.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}</style>'
                % (bg, fg, self.mount))

    def page_html(self, payload, sibling, article_title, url):
        """The shell around one article."""
        title = (article_title + self.title_sep + self.site) if self.title_mode == 'article' else self.site
        data_attr = ' data-state="%s"' % b64(payload) if self.delivery == 'attr-b64' else ''
        mount = self.mount_html(data_attr)
        script = self.script(payload, sibling)
        lang = self.lang if self.lang != 'und' else 'en'
        if self.tpl == 'hybrid':
            s = self.hybrid_base.replace(MOUNT_TOKEN, mount, 1)
            if self.title_mode == 'generic':
                s = set_title(s, self.site)
            k = body_close_start(s)
            return s[:k] + script + '\n' + s[k:]
        head = ('<!DOCTYPE html>\n<html lang="%s">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width,initial-scale=1">\n<title>%s</title>\n'
                '<link rel="icon" href="/favicon.ico">\n' % (lang, esc(title)))
        if self.title_mode == 'article':
            head += '<meta property="og:title" content="%s">\n<link rel="canonical" href="%s">\n' % (
                esc(article_title), esc(url))
        head += self.css() + '\n'
        noscript = '<noscript>%s</noscript>\n' % esc(self.noscript) if self.noscript else ''
        logo = '<a class="logo" href="/">%s</a>' % esc(self.site)
        if self.tpl == 'vue-app':
            body = ('<body>\n%s<header class="site-header">%s<nav>%s</nav></header>\n%s\n'
                    '<footer class="site-footer">%s</footer>\n%s\n</body>\n</html>\n'
                    % (noscript, logo, self.nav, mount, self.footer, script))
        elif self.tpl == 'plain-ajax':
            body = ('<body>\n<div id="wrapper">\n<div id="header"><h3>%s</h3>%s</div>\n'
                    '<div id="main">%s</div>\n<div id="footer">%s</div>\n</div>\n%s\n</body>\n</html>\n'
                    % (esc(self.site), self.nav, mount, self.footer, script))
        elif self.tpl == 'skeleton':
            body = ('<body class="app">\n<header class="site-header">%s<nav aria-label="main">%s</nav></header>\n'
                    '<main>%s</main>\n<footer class="site-footer">%s</footer>\n%s%s\n</body>\n</html>\n'
                    % (logo, self.nav, mount, self.footer, noscript, script))
            return head + '</head>\n' + body
        else:   # react-root: the script in the head, waiting for DOMContentLoaded
            if self.wrap == 'module' or self.timing in ('dcl', 'dcl-timeout', 'load'):
                head += script + '\n'
                script = ''
            body = ('<body>\n%s<div class="layout"><header class="site-header">%s<nav>%s</nav></header>\n'
                    '%s\n<footer class="site-footer">%s</footer></div>\n%s</body>\n</html>\n'
                    % (noscript, logo, self.nav, mount, self.footer, script + '\n' if script else ''))
            return head + '<script src="/static/js/%s.%s.js" defer></script>\n</head>\n' % (self.app, self.bundle[:8]) + body
        return head + '</head>\n' + body


def shell_url(shell, page, rng, title):
    """Where the shell page with page's article lives (the shell's host and URL scheme)."""
    host = shell.host
    rd = site_key('https://' + host)      # registered domain; the blog's own host on multi-tenant hosts
    slug = url_slug(title or page.site, rng)
    st = shell.url_style
    if st == 'query':
        if page is shell.page:
            return add_query(page.url, shell.qparam)
        return 'https://%s/%s?%s' % (host, slug, shell.qparam)
    if st == 'app':
        return 'https://%s/app/%s' % (host, slug)
    if st == 'mobile':
        return 'https://m.%s/%s' % (rd, slug)
    if st == 'appsub':
        return 'https://app.%s/read/%d' % (rd, rng.randint(10000, 9999999))
    if st == 'story':
        return 'https://%s/story/%s-%d' % (host, slug[:40].strip('-'), rng.randint(1000, 99999))
    return 'https://%s/articles/%s?id=%d' % (host, slug, rng.randint(100, 999999))


def shell_doc(B, shell, p, rng, url, title=None):
    """A client-rendered page: shell + page p's article as data (a sibling JSON file for fetch),
    under the article's own title unless another is given."""
    title = title or p.ctitle or p.title or p.site
    payload = article_payload(p, shell.schema, rng, title)
    sibling = ''
    if shell.delivery in ('fetch-json', 'xhr-json'):
        data = json.dumps(payload, ensure_ascii=False, indent=rng.choice([None, None, 1])).encode('utf-8')
        name = 'docs/%s.json' % sha(data)[:20]
        B.store.docs.setdefault(name, data)
        B.siblings.add(name)
        sibling = ('./' if rng.random() < 0.5 else '') + name[len('docs/'):]
    s = shell.page_html(payload, sibling, title, url)
    d = Doc(p, s, url, title, source=p.id, lang=p.lang)
    if shell.tpl == 'hybrid':
        d.charset_page = shell.page
    d.steps = ['shell:%s:%s:%s' % (shell.tpl, shell.delivery, shell.timing)]
    return d


def shell_variant(shell):
    parts = [shell.tpl, shell.delivery]
    if shell.timing == 'dcl-timeout':
        parts.append('timeout')
    return '+'.join(parts)


# ---- hidden keyword stuffing

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
BASE_RE = re.compile(r'<base\b[^>]*\bhref', re.I)


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


def t_hidden_stuffing(B, doc, rng):
    """The page with a large block of invisible keywords (CSS, an external stylesheet or a script hides it)."""
    p = doc.page
    s = doc.html
    (tech, where) = rng.choices([m for m, w in HIDE_METHODS], [w for m, w in HIDE_METHODS])[0]
    cls = rng.choice(SHELL_CLASSES)
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
        name = 'docs/%s.css' % sha(css)[:20]
        B.store.docs.setdefault(name, css)
        B.siblings.add(name)
        s = s[:hpos] + '<link rel="stylesheet" href="%s%s">\n' % ('./' if rng.random() < 0.5 else '', name[5:]) + s[hpos:]
    elif where == 'script':
        js = ("<script>document.addEventListener('DOMContentLoaded',function(){var e=document.querySelectorAll('.%s');"
              "for(var i=0;i<e.length;i++)e[i].style.display='none';});</script>\n" % cls)
        s = s[:hpos] + js + s[hpos:]
    d = derive(doc, s, url=stuffed_url(doc.url, rng), step='stuffing:%s:%s' % (tech, where))
    d.charset_page = doc.charset_page
    var = '%s+%s' % (tech, where)
    return d, var


def build_script_split(B, split, pages, targets):
    """client-rendered, app-shell and hidden-stuffing pairs of one split."""
    titles = sorted({p.ctitle for p in pages if p.ctitle})
    ctx = {'titles': titles}
    full = B.script_docs

    def room(p):
        return full[p.id] < min(3, max(1, int(SCRIPT_DOC_BYTES / max(p.gz, 1))))

    def ok_negative(a, b):
        return a.id != b.id and frozenset((a.id, b.id)) not in B.nodup

    def side_a(p, r):
        """The real page as served, or (sometimes) an already made near-copy of it."""
        vs = [(k, d) for k, d in B.variants.get(p.id, []) if k in ('dynamic', 'small-edit', 'mirror')]
        if vs and r.random() < 0.3:
            return r.choice(vs)
        return '', original(p)

    shells = {}           # page id -> shells used for its client-rendered page (app-shell reuses them)
    # the rendered article is the core: skip pages whose located core is a sliver of the page
    el = [p for p in pages if eligible(p, 'print') and len(p.core_text) >= 0.08 * p.body_text_len]

    # ---- client-rendered: the page vs an app shell whose script builds the same article
    kind = 'client-rendered'
    it = cycle(el, B.rng('scripts', split, kind, 'order'))
    tries = 0
    while B.count(split, kind) < targets[kind] and tries < targets[kind] * 8 and el:
        tries += 1
        p = next(it)
        r = B.rng('scripts', split, kind, p.id, tries)
        shell = Shell(p, r, ['inline-json', 'json-script', 'inline-b64', 'inline-chunks', 'attr-b64',
                             'fetch-json', 'fetch-json'], hybrid_ok=room(p))
        va, da = side_a(p, r)
        db = shell_doc(B, shell, p, r, shell_url(shell, p, r, p.ctitle))
        if r.random() < SHELL_PAIR_RATE:
            # both sides script-built, the same article under another title and shell
            other = Shell(p, r, ['inline-json', 'json-script', 'inline-b64', 'attr-b64', 'fetch-json'],
                          hybrid_ok=False)
            t = r.choice(GENERIC_TITLES.get(p.lang, GENERIC_TITLES['en']) + titles + [p.site or 'Home'])
            da = shell_doc(B, other, p, r, shell_url(other, p, r, t), title=t)
            va = 'shells:' + shell_variant(other).replace('+', ':')
        var = shell_variant(shell) + ('+' + va if va else '')
        if B.add_pair(split, kind, 1, da, db, var):
            shells.setdefault(p.id, []).append((shell, db))
            if shell.tpl == 'hybrid':
                full[p.id] += 1

    # ---- app-shell: one shell, two different articles
    kind = 'app-shell'
    by_group = defaultdict(list)
    by_lang = defaultdict(list)
    for p in el:
        by_group[p.group].append(p)
        by_lang[p.lang].append(p)
    it = cycle(el, B.rng('scripts', split, kind, 'order'))
    tries = 0
    while B.count(split, kind) < targets[kind] and tries < targets[kind] * 8 and el:
        tries += 1
        x = next(it)
        r = B.rng('scripts', split, kind, x.id, tries)
        same = [q for q in by_group[x.group] if ok_negative(x, q)]
        lang = [q for q in by_lang[x.lang] if ok_negative(x, q)]
        pool = same if same and r.random() < 0.7 else (lang if lang and r.random() < 0.8 else
                                                        [q for q in el if ok_negative(x, q)])
        if not pool:
            continue
        y = r.choice(pool)
        if y.gz > REF_GZ and r.random() > REF_GZ / y.gz:
            y = r.choice(pool)
        if not ok_negative(x, y):
            continue
        reuse = [sd for sd in shells.get(x.id, []) if sd[0].delivery in ('attr-b64', 'inline-b64', 'inline-chunks',
                                                                         'fetch-json', 'xhr-json')]
        if reuse and r.random() < 0.4:
            shell, dx = r.choice(reuse)
        else:
            shell = Shell(x, r, ['attr-b64', 'attr-b64', 'inline-b64', 'inline-chunks', 'fetch-json', 'fetch-json'],
                          hybrid_ok=room(x))
            dx = shell_doc(B, shell, x, r, shell_url(shell, x, r, x.ctitle))
            if shell.tpl == 'hybrid':
                full[x.id] += 1
        uy = shell_url(shell, y, r, y.ctitle)
        dy = shell_doc(B, shell, y, r, uy)
        if B.add_pair(split, kind, 0, dx, dy, shell_variant(shell)):
            if shell.tpl == 'hybrid':
                full[x.id] += 1

    # ---- hidden keyword stuffing: the clean page vs the same page with invisible keywords
    kind = 'hidden-stuffing'
    el2 = [p for p in pages if eligible(p, kind)]
    it = cycle(el2, B.rng('scripts', split, kind, 'order'))
    tries = 0
    while B.count(split, kind) < targets[kind] and tries < targets[kind] * 8 and el2:
        tries += 1
        p = next(it)
        if not room(p):
            continue
        r = B.rng('scripts', split, kind, p.id, tries)
        va, dv = side_a(p, r)
        if va and r.random() < 0.5:
            da, base = dv, original(p)       # a near-copy against the stuffed page
        else:
            da, base = original(p), dv       # the page against a stuffed (near-)copy
        db, var = t_hidden_stuffing(B, base, r)
        if db is None:
            B.fail[kind + ':n/a'] += 1
            continue
        if va:
            var += '+' + va
        if B.add_pair(split, kind, 1, da, db, var):
            full[p.id] += 1


# ----------------------------------------------------------------------------------------

SOURCES_MD = """# Where the web pages come from

Every document under `docs/` is a real web page, or a page derived from one by
`training-data/generate.py` (see `../README.md`). The real pages come from two public
test collections; both keep their own licence (copied here):

- **Mozilla Readability test pages** (`readability/<name>` in the `source_*` columns):
  the `source.html` test inputs of Mozilla's Readability library
  (<https://github.com/mozilla/readability>, `test/test-pages/`), Apache License 2.0,
  see `LICENSE-readability.md`. The curated `expected.html` (the article's core content)
  was used to build print/plain-text versions and to locate the core in the page. The
  pages themselves were published by their sites (news sites, blogs, Wikipedia, ...).
- **trafilatura evaluation pages** (`trafilatura/<file>`): the `eval/` pages and
  `evaldata.json` of the trafilatura benchmark (<https://github.com/adbar/trafilatura>,
  `tests/`), repository under Apache License 2.0, see `LICENSE-trafilatura-eval`; the
  pages are third-party web pages (copyright of their publishers), kept here as test
  data. The people-chosen `with` snippets located the core content.

Pages larger than 600 KB, synthetic Readability fixtures (lorem ipsum) and pages with
almost no text were left out. Original pages are stored byte for byte as served
(gzip'd); derived pages are written as UTF-8.

Source pages used: {n_read} from Readability, {n_traf} from trafilatura-eval.

`docs/*.json` and `docs/*.css` are not pages: they are data files and stylesheets that some
derived pages load by a relative URL (the article data of a client-rendered page, a
stylesheet that hides stuffed keywords), made by the generator from the same sources.
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--source', default='../shared/data/web-pages')
    ap.add_argument('--out', default='training-data/web')
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('--fresh-beside', metavar='DIR',
                    help='build from the pages the pair files in DIR (train.csv, test.csv) do not use, '
                         'nor any page of their sites: a second set to judge a model trained on DIR')
    ap.add_argument('--max-gzip', type=int, default=TRAF_MAX_GZ,
                    help='largest trafilatura page (gzip bytes) drawn (default %(default)s)')
    args = ap.parse_args()
    seed = args.seed
    log = defaultdict(list)
    log['missing_files'] = 0

    def say(*a):
        if not args.quiet:
            print(*a, file=sys.stderr, flush=True)

    # ---- load
    say('loading readability pages ...')
    pages = load_readability(args.source, log)
    say('  %d readability pages' % len(pages))
    entries = load_trafilatura(args.source, log)
    base = os.path.join(args.source, 'trafilatura-eval')
    fresh = args.fresh_beside is not None
    if fresh:
        used = used_sources(args.fresh_beside)
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
        if len(zlib.compress(raw, 6)) > args.max_gzip:
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

    # ---- near-duplicate sources and site groups
    dups = near_dup_pairs(pages)
    uf = UF()
    for p in pages:
        uf.union('g:' + p.group, 'p:' + p.id)
    for a, b, j in dups:
        uf.union('p:' + a, 'p:' + b)
    comp = defaultdict(list)
    for p in pages:
        comp[uf.find('p:' + p.id)].append(p)
    # ---- split by site group, stratified (collection x single/multi page groups)
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
    store = Store()
    B = Builder(seed, pages, split_of, store)
    B.real_dups = [(a, b) for a, b, j in dups if j >= 0.6]
    for a, b, j in dups:
        B.nodup.add(frozenset((a, b)))
    n_test = sum(1 for p in pages if split_of[p.id] == 'test')
    frac = n_test / len(pages)
    for split in ('train', 'test'):
        sp_pages = [p for p in pages if split_of[p.id] == split]
        targets = {}
        for k, v in TARGETS.items():
            t = max(TEST_MIN, round(v * frac))
            targets[k] = t if split == 'test' else max(0, v - t)
        say('building %s pairs from %d pages ...' % (split, len(sp_pages)))
        build_split(B, split, sp_pages, targets)
    # ---- pairs whose truth depends on rendering (own random streams, rows written last)
    n_old = len(B.rows)
    B.siblings = set()
    B.script_docs = Counter()
    for split in ('train', 'test'):
        sp_pages = [p for p in pages if split_of[p.id] == split]
        targets = {}
        for k, v in SCRIPT_TARGETS.items():
            t = max(SCRIPT_TEST_MIN, round(v * frac))
            targets[k] = t if split == 'test' else max(0, v - t)
        say('building %s pairs with scripts / hidden text ...' % split)
        build_script_split(B, split, sp_pages, targets)

    # ---- pages 1 and 2 of one article (own random streams, rows written after those)
    n_scripts = len(B.rows)
    for split in ('train', 'test'):
        sp_pages = [p for p in pages if split_of[p.id] == split]
        t = max(TEST_MIN, round(PAGINATED_TARGET * frac))
        build_paginated(B, split, sp_pages, t if split == 'test' else max(0, PAGINATED_TARGET - t))

    # ---- titles and URLs drawn apart from the label, for every kind
    titles = {sp: sorted({p.ctitle for p in pages if p.ctitle and split_of[p.id] == sp}) for sp in ('train', 'test')}
    for row in B.rows:
        draw_cues(B, row, titles[row['split']])
    used = {row[k] for row in B.rows for k in ('html_a', 'html_b')} | B.siblings
    store.docs = {name: data for name, data in store.docs.items() if name in used}

    # ---- write
    out = args.out
    os.makedirs(os.path.join(out, 'docs'), exist_ok=True)
    for fn in sorted(os.listdir(os.path.join(out, 'docs'))):
        if 'docs/' + fn not in store.docs:
            os.remove(os.path.join(out, 'docs', fn))
    for name in sorted(store.docs):
        path = os.path.join(out, name)
        data = store.docs[name]
        if not (os.path.isfile(path) and open(path, 'rb').read() == data):
            with open(path, 'wb') as f:
                f.write(data)
    cols = ['url_a', 'url_b', 'html_a', 'html_b', 'label', 'kind', 'split', 'source_a', 'source_b', 'query', 'variant',
            'cues']
    for split in ('train', 'test'):
        rows = [r for r in B.rows[:n_old] if r['split'] == split]
        hrng(seed, 'rows', split).shuffle(rows)
        new = [r for r in B.rows[n_old:n_scripts] if r['split'] == split]
        hrng(seed, 'scripts', 'rows', split).shuffle(new)
        pages_rows = [r for r in B.rows[n_scripts:] if r['split'] == split]
        hrng(seed, 'paginated', 'rows', split).shuffle(pages_rows)
        rows += new + pages_rows
        with open(os.path.join(out, split + '.csv'), 'w', encoding='utf-8', newline='') as f:
            w = csv.DictWriter(f, fieldnames=cols, lineterminator='\n', extrasaction='ignore')
            w.writeheader()
            for row in rows:
                w.writerow(row)
    src = args.source
    shutil.copyfile(os.path.join(src, 'readability', 'LICENSE.md'), os.path.join(out, 'LICENSE-readability.md'))
    shutil.copyfile(os.path.join(src, 'trafilatura-eval', 'LICENSE'), os.path.join(out, 'LICENSE-trafilatura-eval'))
    used = {r['source_a'] for r in B.rows} | {r['source_b'] for r in B.rows}
    with open(os.path.join(out, 'SOURCES.md'), 'w', encoding='utf-8') as f:
        f.write(SOURCES_MD.format(n_read=sum(1 for u in used if u.startswith('readability/')),
                                  n_traf=sum(1 for u in used if u.startswith('trafilatura/'))))

    # ---- summary
    print('pairs per kind (label, train, test, total, with variant):')
    kinds = POSITIVE + NEGATIVE + list(SCRIPT_TARGETS) + ['paginated']
    for k in kinds:
        rs = [r for r in B.rows if r['kind'] == k]
        tr = sum(1 for r in rs if r['split'] == 'train')
        te = sum(1 for r in rs if r['split'] == 'test')
        lab = rs[0]['label'] if rs else '-'
        nv = sum(1 for r in rs if r['variant'])
        print('  %-14s %s %5d %5d %5d %5d' % (k, lab, tr, te, tr + te, nv))
    for split in ('train', 'test'):
        rs = [r for r in B.rows if r['split'] == split]
        pos = sum(1 for r in rs if r['label'] == 1)
        print('%s: %d pairs, %d positive, %d negative' % (split, len(rs), pos, len(rs) - pos))
    pos = sum(1 for r in B.rows if r['label'] == 1)
    print('total: %d pairs, %.1f%% positive; %d documents + %d sibling files, %.1f MB; %d source pages (%d train, %d test)'
          % (len(B.rows), 100.0 * pos / max(1, len(B.rows)), len(store.docs) - len(B.siblings), len(B.siblings),
             store.size() / 1e6,
             len(pages), len(pages) - n_test, n_test))
    if store.size() > BUDGET_BYTES:
        print('WARNING: documents exceed the %.0f MB budget' % (BUDGET_BYTES / 1e6))
    if not args.quiet:
        say('not applicable / rejected attempts:', dict(sorted(B.fail.items())))
        say('near-duplicate source pages:', dups)
        cs = Counter((p.coll, p.declared or '-', p.charset_how) for p in pages)
        say('charsets:', dict(sorted(cs.items())))
        say('skipped >600KB:', len(log['skipped_big']), '| synthetic:', len(log['skipped_synthetic']),
            '| too little text:', log['skipped_notext'], '| evaldata entries without file:', log['missing_files'],
            '| eval files without evaldata entry:', log['unlabelled_files'])
        nocore = [p.id for p in pages if not p.core_loc]
        say('pages without located core (%d):' % len(nocore), nocore[:20])


if __name__ == '__main__':
    main()
