"""Documents and the bookkeeping of pairs, shared by every kind: a Doc is a page's HTML
as fetched from some URL (the real page, or a transformed copy that remembers its page);
the Builder collects pairs (skipping identical or repeated ones, drawing the pair's order
and query), counts them per kind and split, and keeps each page's size budget; cycle() and
attempts() are the seeded walks over pages that the kinds draw their pages from.

One Builder runs through every kind in turn, so the budgets and the documents a kind made
(variants of a page, used by later kinds) live here rather than in any one kind.
"""
import re
from collections import Counter, defaultdict

from .core import MARK_E, MARK_S, hrng, sha
from .htmltext import fix_charset_decl
from .lang import title_words

QUERY_RATE = 0.30
DERIVED_BUDGET = 75_000       # a page gives at most max(2, this / its gzip size) full-size derived documents
REF_GZ = 9_000                # pages bigger than this (gzip) are picked for derived documents less often
SCRIPT_DOC_BYTES = 45_000     # a page gives at most max(1, this / its gzip size) full-size documents here (at most 3)


class Doc:
    """A document of a pair: HTML (with the core marked) as fetched from url; the real
    page as served when `original`, else a copy derived from `page` (steps: how)."""

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


class Builder:
    """The pairs made so far (rows), and what later kinds and the size budget need to know."""

    def __init__(self, seed, pages, split_of, store):
        self.seed = seed
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
        self.real_dups = []                  # (page id, page id): two real fetches of one page
        # the kinds that need rendering: sibling files (JSON data, CSS) and full-size documents per page
        self.siblings = set()
        self.script_docs = Counter()

    def rng(self, *k):
        return hrng(self.seed, *k)

    def add_pair(self, split, kind, label, da, db, variant=''):
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
        rng = self.rng('order', kind, pa, pb)
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

    def script_room(self, p):
        """The same for the kinds that need rendering (their own, smaller budget)."""
        return self.script_docs[p.id] < min(3, max(1, int(SCRIPT_DOC_BYTES / max(p.gz, 1))))

    def distinct(self, a, b):
        """Whether pages a and b may make a negative (not one page, not near-duplicate sources)."""
        return a.id != b.id and frozenset((a.id, b.id)) not in self.nodup

    def page_or_near_copy(self, p, r):
        """(variant, document): the real page as served, or (sometimes) an already made
        near-copy of it (dynamic, small-edit, mirror)."""
        vs = [(k, d) for k, d in self.variants.get(p.id, []) if k in ('dynamic', 'small-edit', 'mirror')]
        if vs and r.random() < 0.3:
            return r.choice(vs)
        return '', original(p)

    def add_sibling(self, data, ext):
        """Stores a file that a document loads by a relative URL (docs/<hash>.<ext>); its name."""
        name = 'docs/%s.%s' % (sha(data)[:20], ext)
        self.store.docs.setdefault(name, data)
        self.siblings.add(name)
        return name

    def count(self, split, kind):
        return sum(1 for r in self.rows if r['split'] == split and r['kind'] == kind)


def several_per_site(pages):
    """Ids of the pages whose site has several pages: their versions on the site's own host
    also make same-site pairs, so some kinds try them first."""
    gsize = Counter(p.group for p in pages)
    return {p.id for p in pages if gsize[p.group] > 1}


def cycle(lst, rng, first=()):
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
            if x.gz > REF_GZ and rng.random() > REF_GZ / x.gz:
                continue
            yield x


def attempts(B, split, kind, el, want, first=(), needs_room=True, per_pair=6, stream=()):
    """Seeded tries at pages of `el` until the split has `want` pairs of `kind`, or
    per_pair × want tries; yields each page with its own random stream and the try's
    number. Pages without room for one more full-size derived document are passed over
    when `needs_room`. `stream`: keys put before the split's in the random streams'."""
    it = cycle(el, B.rng(*stream, split, kind, 'order'), first=first)
    tries = 0
    while B.count(split, kind) < want and tries < want * per_pair and el:
        tries += 1
        p = next(it)
        if needs_room and not B.room(p):
            continue
        yield p, B.rng(*stream, split, kind, p.id, tries), tries
