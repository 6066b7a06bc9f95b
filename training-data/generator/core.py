"""Helpers every part of the generator shares: seeded random streams, hashing and gzip,
text and URL utilities, and the markers of a page's core content.

Kept in one place so that the page reader, the pair bookkeeping and every kind of pair
(kinds/) use one copy. Everything random comes from hrng(seed, ...) streams keyed by what
they are for, which is what makes two runs byte-identical.
"""
import gzip
import hashlib
import html
import io
import random
import re
import unicodedata
import zlib
from urllib.parse import urlsplit, urlunsplit

# where a page's core content starts and ends in a document's HTML (removed when written)
MARK_S = '<!--twp:core-->'
MARK_E = '<!--/twp:core-->'


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
# URLs and sites

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
# numbers and sibling URLs (shared by key-facts, figures and the cues)

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


# words of made-up slugs and host names
HOST_WORDS = ['daily', 'post', 'times', 'herald', 'wire', 'hub', 'journal', 'digest', 'press', 'report',
              'insider', 'today', 'central', 'world', 'local', 'tribune', 'planet', 'notes', 'review', 'feed']


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
