"""HTML as text: a small tokenizer and tree that keep positions in the source string,
visible text and its spans, places in a page (body, core, title), cleaning a fragment,
and charsets.

Every transformation edits a page's HTML in place by position (the rest of the page must
stay byte for byte as it was), so they all share this reader instead of a parser that
rewrites the markup.
"""
import codecs
import html
import re
from collections import Counter
from urllib.parse import urljoin

from .core import MARK_E, MARK_S, esc, norm_ws

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
                        # an open p, li, dt/dd, tr, td/th or option that this start tag ends
                        if (tag in CLOSES_P and t == 'p') or (tag == t and tag in ('li', 'tr', 'option')) \
                                or (tag in ('dt', 'dd') and t in ('dt', 'dd')) \
                                or (tag in ('td', 'th') and t in ('td', 'th')):
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
        return tag_attrs(self.s[el.s:el.ie])

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


def walk_visible(s, lo=0, hi=None, toks=None):
    """The tokens of s (toks, or tokenize(s)) that overlap [lo, hi), keeping count of the
    open hidden elements: yields (token, nh, hidden, brk) for each, nh the number of open
    hidden elements, hidden their counts by tag and brk whether the token is a block
    boundary (a block element's start or end tag outside the hidden bookkeeping)."""
    if hi is None:
        hi = len(s)
    if toks is None:
        toks = tokenize(s)
    hidden = Counter()
    nh = 0
    for t in toks:
        if t[2] <= lo:
            continue
        if t[1] >= hi:
            break
        typ = t[0]
        brk = False
        if typ == 's':
            tag = t[3]
            if tag in HIDDEN:
                if tag not in VOID:
                    hidden[tag] += 1
                    nh += 1
            elif tag in BLOCK:
                brk = True
        elif typ == 'e':
            tag = t[3]
            if hidden[tag] > 0:
                hidden[tag] -= 1
                nh -= 1
            elif tag in BLOCK:
                brk = True
        yield t, nh, hidden, brk


def extract_text(s, lo=0, hi=None, toks=None):
    """Visible text of s[lo:hi] with a newline at block boundaries."""
    if hi is None:
        hi = len(s)
    parts = []
    for t, nh, _, brk in walk_visible(s, lo, hi, toks):
        if t[0] == 't':
            if nh == 0:
                parts.append(html.unescape(s[max(t[1], lo):min(t[2], hi)]))
        elif brk:
            parts.append('\n')
    txt = ''.join(parts)
    lines = [norm_ws(l) for l in txt.split('\n')]
    return '\n'.join(l for l in lines if l)


def text_spans(s, lo=0, hi=None, toks=None, include_title=False):
    """(a, b) spans of visible, non-blank text tokens inside [lo, hi)."""
    if hi is None:
        hi = len(s)
    out = []
    for t, nh, hidden, _ in walk_visible(s, lo, hi, toks):
        if t[0] == 't':
            if (nh == 0 or (include_title and nh == hidden['title'] + hidden['head'])) \
                    and s[t[1]:t[2]].strip():
                out.append((max(t[1], lo), min(t[2], hi)))
    return out


def walk_headings(toks, tags=('h1', 'h2')):
    """Walks toks, yielding (token, start) for each: start is the open heading of `tags`
    that the token, an end tag of `tags`, closes (the latest one still open), else None."""
    stack = []
    for t in toks:
        st = None
        if t[0] == 's' and t[3] in tags:
            stack.append(t)
        elif t[0] == 'e' and t[3] in tags and stack:
            st = stack.pop()
        yield t, st


def headings(toks, tags=('h1', 'h2')):
    """(start tag, end tag) of each closed heading of `tags` in toks, in closing order."""
    return ((st, t) for t, st in walk_headings(toks, tags) if st is not None)


def core_spans(s):
    """The core of s and its visible text: (core bounds, tokens of s, text spans inside the
    core), or None when s has no marked core."""
    cb = core_bounds(s)
    if not cb:
        return None
    toks = tokenize(s)
    return cb, toks, text_spans(s, cb[0], cb[1], toks)


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
# places in a page

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


def set_title(s, new_title):
    m = re.search(r'(?is)(<title\b[^>]*>)(.*?)(</title\s*>)', s)
    if m:
        return s[:m.start(2)] + esc(new_title) + s[m.end(2):]
    hm = re.search(r'<head\b[^>]*>', s, re.I)
    if hm:
        return s[:hm.end()] + '<title>%s</title>' % esc(new_title) + s[hm.end():]
    return s


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


# a <base href> sends relative URLs (sibling data files, stylesheets) elsewhere
BASE_RE = re.compile(r'<base\b[^>]*\bhref', re.I)
