#!/usr/bin/env python3
"""A benchmark crawl for `twinpage dedupe`: a WARC of real pages with planted copies.

Needs warcio: `pip install warcio` (scripts/bench-dedupe.sh installs it into a venv).

    scripts/crawl-corpus.py OUT.warc.gz --pages N [--seed S]
    scripts/crawl-corpus.py OUT.warc.gz --export-pages DIR

The first form writes OUT.warc.gz (warcio's WARCWriter, gzip per record) and the sidecar
OUT.truth.csv; the second writes the crawl's HTML pages as lone files, DIR/pages/*.html
and DIR/docs.csv (url,html), to run dedupe on the same pages without their archive.

What the crawl holds (N = number of HTML page responses, status 200):

- Base pages, built from the real pages of training-data/web (the most used document
  of each source page in train.csv/test.csv, i.e. the page as served; one page of each
  group of sources that a duplicate pair joins): 382 real pages. The German and English
  pages (the languages with 50+ real pages) whose qualifying `<p>` paragraphs carry at
  least 60 % of the visible text are **templates** (130); the other German and English
  pages are **donors** (211), kept out of the crawl; the rest (other languages) are
  used as they are. The first base pages are the real pages themselves (~170: templates
  and other-language pages); beyond that a base page is a **remix**: a template
  (markup, navigation, boilerplate) whose qualifying paragraphs (and `<title>`, first
  `<h1>`) are replaced by donor paragraphs of its language (60-1,200 characters; as
  many per paragraph as make up its length; as few from any one donor as the pool
  allows), its title by 5-9 words from a random place of them. Remixes of one template
  differ in most of their text and share the rest (up to 40 %) like pages of one site;
  no remix holds a paragraph of a page that is in the crawl.
  Every base page links `/static/site.css` and `/static/app.js?v=<n>` of its host and
  carries a date line.
- Planted near-copies: ~10 % of base pages get 1-3 copies at another URL: tracking
  parameters, `http` instead of `https`, a mirror host (with a mirror note), or small
  edits (a changed date line, an extra banner) at a sibling URL.
- Exact re-captures: ~2 % of pages are fetched again (same URL, same bytes, a later
  WARC-Date).
- Script-built pages (~5 % of base pages): an app shell (`<div id="root">Loading…</div>`
  and `<script src="/static/article-<k>.js">`) whose archived script writes the title
  and paragraphs of an article into #root. Half of them carry the article of a static
  base page of the crawl (same truth group: only a render with the archive shows it),
  half an article found nowhere else in the crawl (their own group; their fetched HTML
  differs from other shells' only in the script's name).
- Subresources: site.css and app.js once per host (also the mirror hosts), each shell's
  article script, a logo image and robots.txt per host; a few 404 pages, 301 redirects
  and a JSON response, to keep the reader honest.

Every response has its request record (WARC-Concurrent-To), realistic HTTP headers
(Date, Server, Content-Type, Content-Length). OUT.truth.csv has one row per page
response: url,group,kind (rows of one planted group share `group`; a re-capture
repeats its URL; kind: original, remix, shell (script-built, its own article),
shell-copy (script-built, the article of a static page of its group), tracking, http,
mirror, edit:date / edit:banner / edit:date+banner, recapture, and shell+tracking,
shell+http, shell+recapture for the copies of a script-built page). Deterministic for a
given seed (record ids and dates included): the same seed and N give the same bytes.
"""

import argparse
import csv
import gzip
import html
import io
import json
import os
import random
import re
import sys
import time
import unicodedata
import uuid
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEB = os.path.join(ROOT, "training-data", "web")

SITES = [
    ("news.harbourgazette.example", "The Harbour Gazette"),
    ("www.kettle-and-quill.example", "Kettle & Quill"),
    ("blog.fernweh-notes.example", "Fernweh Notes"),
    ("docs.lanternworks.example", "Lanternworks"),
    ("www.marktplatz-kurier.example", "Marktplatz Kurier"),
    ("journal.ostrea.example", "Ostrea Journal"),
]
MIRRORS = ["mirror.webarchive-cache.example", "copies.readerhub.example"]
START = datetime(2024, 3, 4, 8, 0, 0, tzinfo=timezone.utc)

BLOCK = re.compile(
    r"<(?:/?(?:p|div|table|tr|td|ul|ol|li|h[1-6]|section|article|blockquote|form|aside|nav|"
    r"header|footer|main|figure|pre)\b|script|style)", re.I)
MASKED = re.compile(r"<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->|"
                    r"<textarea\b.*?</textarea\s*>|<template\b.*?</template\s*>", re.I | re.S)
P_RE = re.compile(r"<p(?=[\s>/])[^>]*>(.*?)</p\s*>", re.I | re.S)
TITLE_RE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)
H1_RE = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.I | re.S)
BODY_RE = re.compile(r"<body\b[^>]*>", re.I)
HEAD_END = re.compile(r"</head\s*>", re.I)
META_CHARSET = re.compile(r"<meta\b[^>]*charset[^>]*>", re.I)
TAG = re.compile(r"<[^>]*>")
SPACE = re.compile(r"\s+")
STOP = {
    "en": "the and of to is in that for with was on are".split(),
    "de": "der die und das ist nicht mit den von sich auch".split(),
    "fr": "le les et des est une dans pour pas que sur".split(),
    "es": "el los y que del las una por con para se".split(),
}
BANNERS = [
    '<div class="site-banner">Subscribe to our newsletter and get every new story in your inbox.</div>',
    '<div class="site-banner">We use cookies to improve your experience. <a href="/privacy">Learn more</a></div>',
    '<div class="site-banner">Live: follow our coverage as it happens, updated every few minutes.</div>',
    '<div class="site-banner">Support independent journalism: become a member today.</div>',
]
TRACKING = [
    "utm_source=newsletter&utm_medium=email&utm_campaign=weekly-{n}",
    "utm_source=twitter&utm_medium=social",
    "fbclid=IwAR{h}",
    "gclid=Cj0KCQ{h}",
    "mc_cid={h}&mc_eid={h2}",
    "sessionid={h}",
]
PNG = bytes.fromhex(  # a 1x1 transparent PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")


def text_of(fragment):
    return SPACE.sub(" ", html.unescape(TAG.sub(" ", fragment))).strip()


def decode(data):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = re.search(rb"charset\s*=\s*[\"']?([A-Za-z0-9_:.\-]+)", data[:8192], re.I)
    if m:
        try:
            return data.decode(m.group(1).decode("ascii"), "replace")
        except LookupError:
            pass
    return data.decode("cp1252", "replace")


def language(text):
    words = text.lower().split()
    counts = {lang: 0 for lang in STOP}
    sets = {lang: set(ws) for lang, ws in STOP.items()}
    for w in words[:5000]:
        for lang, s in sets.items():
            if w in s:
                counts[lang] += 1
    best = max(sorted(counts), key=lambda lang: counts[lang])
    return best if counts[best] >= max(10, len(words[:5000]) // 50) else "other"


class Template:
    """A real page cut into literal segments and named slots."""

    def __init__(self, name, page):
        self.name = name
        page = META_CHARSET.sub('<meta charset="utf-8">', page)
        masked = [(m.start(), m.end()) for m in MASKED.finditer(page)]

        def free(a, b):
            return not any(s < b and a < e for s, e in masked)

        events = []  # (position, end, order, key)
        head = HEAD_END.search(page)
        body = BODY_RE.search(page)
        head_at = head.start() if head else (body.start() if body else 0)
        title = next((m for m in TITLE_RE.finditer(page) if free(m.start(), m.end())), None)
        self.title = text_of(title.group(1)) if title else ""
        self.original = {"title": "", "h1": ""}  # what the title and h1 slots held
        self.has_title = bool(title and title.end() <= head_at)
        if self.has_title:
            events.append((title.start(1), title.end(1), 0, "title"))
            self.original["title"] = title.group(1)
        events.append((head_at, head_at, 1, "head"))
        body_at = body.end() if body else head_at
        events.append((body_at, body_at, 2, "banner"))
        h1 = next((m for m in H1_RE.finditer(page, body_at)
                   if free(m.start(), m.end()) and not BLOCK.search(m.group(1))), None)
        if h1:
            events.append((h1.start(1), h1.end(1), 3, "h1"))
            self.original["h1"] = h1.group(1)
            events.append((h1.end(), h1.end(), 4, "dateline"))
        else:
            events.append((body_at, body_at, 3, "dateline"))
        self.paragraphs = []  # original inner HTML of each qualifying paragraph
        self.texts = []
        for m in P_RE.finditer(page, body_at):
            inner = m.group(1)
            if not free(m.start(), m.end()) or BLOCK.search(inner):
                continue
            text = text_of(inner)
            cjk = sum(1 for ch in text if ord(ch) > 0x2E80)
            if len(text) < 60 or (len(text.split()) < 8 and cjk < 30):
                continue
            events.append((m.start(1), m.end(1), 5, ("p", len(self.paragraphs))))
            self.paragraphs.append(inner)
            self.texts.append(text)
        events.sort(key=lambda e: (e[0], e[2]))
        self.segments, self.keys, at = [], [], 0
        for start, end, _, key in events:
            if start < at:  # overlaps a slot already taken (not expected): an insertion
                if end > start:  # moves after it, a replacement is dropped
                    continue
                start = end = at
            self.segments.append(page[at:start])
            self.keys.append(key)
            at = end
        self.segments.append(page[at:])
        self.keys_set = set(k for k in self.keys if isinstance(k, tuple))
        visible = text_of(MASKED.sub(" ", page[body_at:]))
        kept = sum(len(self.texts[k[1]]) for k in self.keys_set)
        self.visible = len(visible)
        self.share = kept / max(1, len(visible))
        self.language = language(visible)
        self.size = len(page)

    def remixable(self):
        return len(self.keys_set) >= 3 and self.share >= 0.6

    def render(self, values):
        out = []
        for seg, key in zip(self.segments, self.keys):
            out.append(seg)
            if isinstance(key, tuple):
                out.append(values["p"][key[1]])
            else:
                out.append(values.get(key, ""))
        out.append(self.segments[-1])
        return "".join(out)


def load_sources():
    """The real page of each source (its most used document), one per duplicate group."""
    counts, sources, joins = {}, {}, []
    for name in ("train.csv", "test.csv"):
        with open(os.path.join(WEB, name), newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                for side in "ab":
                    doc = row["html_" + side]
                    counts[doc] = counts.get(doc, 0) + 1
                    sources.setdefault(row["source_" + side], set()).add(doc)
                if row["label"] == "1" and row["source_a"] != row["source_b"]:
                    joins.append((row["source_a"], row["source_b"]))
    parent = {s: s for s in sources}

    def find(s):
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for a, b in joins:
        parent[find(a)] = find(b)
    chosen = {}
    for source in sorted(sources):
        root = find(source)
        if root not in chosen:
            chosen[root] = source
    pages = []
    for source in sorted(chosen.values()):
        doc = sorted(sources[source], key=lambda d: (-counts[d], d))[0]
        with gzip.open(os.path.join(WEB, doc)) as f:
            pages.append(Template(source, decode(f.read())))
    return pages


def slug(title, fallback):
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", folded.lower())[:7]
    return "-".join(words) or fallback


def make_title(rng, texts):
    """5-9 words from a random place of one of `texts`: remixes that drew the same
    paragraph first do not share their title too."""
    text = texts[rng.randrange(len(texts))]
    words = text.split()
    if len(words) >= 6:
        k = rng.randint(5, 9)
        start = rng.randrange(max(1, len(words) - k))
        title = " ".join(words[start:start + k]).strip(",.;:–-\"'“”„()")
        return title[:1].upper() + title[1:]
    start = rng.randrange(max(1, len(text) - 24))
    return text[start:start + 24]


def http_date(t):
    return format_datetime(t, usegmt=True)


def warc_date(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class Page:
    __slots__ = ("url", "time", "group", "kind", "template", "values", "body")

    def __init__(self, url, t, group, kind, template=None, values=None, body=None):
        self.url, self.time, self.group, self.kind = url, t, group, kind
        self.template, self.values, self.body = template, values, body

    def html(self):
        if self.body is None:
            return self.template.render(self.values).encode("utf-8")
        return self.body


def shell_html(site_name, lang, k, host_version):
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(site_name)}</title>
<link rel="stylesheet" href="/static/site.css">
<script src="/static/app.js?v={host_version}" defer></script>
</head>
<body>
<header class="site-header"><a class="brand" href="/">{html.escape(site_name)}</a>
<nav><a href="/news/">News</a> <a href="/topics/">Topics</a> <a href="/about/">About</a></nav></header>
<main><div id="root">Loading…</div></main>
<script src="/static/article-{k}.js"></script>
<footer class="site-footer">© <span class="site-footer-year">2024</span> {html.escape(site_name)}</footer>
</body>
</html>
""".encode("utf-8")


def article_js(title, paragraphs, site_name):
    data = json.dumps({"title": title, "site": site_name, "paragraphs": paragraphs})
    return f"""/* article bundle */
(function () {{
  var article = {data};
  function render() {{
    var root = document.getElementById('root');
    root.textContent = '';
    var h = document.createElement('h1');
    h.textContent = article.title;
    root.appendChild(h);
    article.paragraphs.forEach(function (text) {{
      var p = document.createElement('p');
      p.textContent = text;
      root.appendChild(p);
    }});
    document.title = article.title + ' | ' + article.site;
  }}
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', render);
  else render();
}})();
""".encode("utf-8")


def site_css(host):
    return f"""/* {host} */
body {{ font: 16px/1.5 Georgia, serif; margin: 0 auto; max-width: 46em; color: #222; }}
.site-header, .site-footer {{ padding: .5em 1em; background: #f4f4f0; }}
.site-banner {{ background: #ffe9a8; padding: .5em 1em; font-family: sans-serif; }}
.mirror-note {{ background: #eee; font-size: .8em; padding: .3em 1em; }}
.dateline {{ color: #666; font-size: .9em; }}
#root h1 {{ font-size: 2em; }}
""".encode("utf-8")


def app_js(version):
    return f"""/* app.js v{version} */
(function () {{
  document.documentElement.className += ' js';
  window.dataLayer = window.dataLayer || [];
  window.dataLayer.push({{ event: 'pageview', path: location.pathname, v: {version} }});
  document.addEventListener('DOMContentLoaded', function () {{
    var year = document.querySelector('.site-footer-year');
    if (year) year.textContent = String(new Date().getFullYear());
  }});
}})();
""".encode("utf-8")


def build(n, seed):
    rng = random.Random(seed)
    templates = load_sources()
    # Remixes only in languages with many real pages (German, English): a small pool (a
    # dozen French pages) would make its remixes share paragraphs with each other.
    count = {}
    for t in templates:
        count[t.language] = count.get(t.language, 0) + 1
    big = sorted(lang for lang in count if lang != "other" and count[lang] >= 50)
    remixable = [t for t in templates if t.remixable() and t.language in big]
    # The other pages of those languages are donors: their paragraphs fill the remixes,
    # and they are not in the crawl themselves, so that no remix holds a paragraph of a
    # page of the crawl (a short page's whole article inside a remix would be a copy).
    # Paragraphs over 1,200 characters (comment dumps, lists of names) are left out: one
    # of them in two remixes would be most of both.
    donors = [t for t in templates if t.language in big and t not in remixable]
    pool, seen = {lang: [] for lang in big}, set()
    for t in donors:
        for text in t.texts:
            if len(text) <= 1200 and text not in seen:
                seen.add(text)
                pool[t.language].append((t.name, text))
    sources_of = {lang: sorted({name for name, _ in pool[lang]}) for lang in pool}
    host_version = {h: rng.randint(100, 999) for h, _ in SITES}
    host_version.update({m: rng.randint(100, 999) for m in MIRRORS})
    site_name = dict(SITES)
    host_of = {t.name: SITES[i % len(SITES)][0] for i, t in enumerate(templates)}

    originals = [t for t in templates if t not in donors]
    rng.shuffle(originals)
    rng.shuffle(remixable)

    def draw(lang, lengths, avoid):
        """Real paragraphs of language `lang` for slots of the given text lengths: each
        slot gets paragraphs until it holds about as much text as the template's own
        paragraph did (at least one), none from page `avoid`, and as few from any one
        page as the pool allows (a remix shares at most a paragraph or two with the
        donor it took them from, and little with other remixes). One list per slot."""
        source = pool[lang]
        mean = sum(len(text) for _, text in source) / len(source)
        wanted = sum(max(1, round(need / mean)) for need in lengths)
        cap = -(-wanted // max(1, len(sources_of[lang]) - 1))
        taken, used, out, misses = {}, set(), [], 0
        for need in lengths:
            slot, size = [], 0
            while not slot or size < 0.9 * need:
                name, text = source[rng.randrange(len(source))]
                if name == avoid or taken.get(name, 0) >= cap or text in used:
                    misses += 1
                    if misses > 200:  # the pool ran short of this cap: allow one more
                        cap, misses = cap + 1, 0
                    continue
                taken[name] = taken.get(name, 0) + 1
                used.add(text)
                slot.append(text)
                size += len(text)
            out.append(slot)
        return out

    def dateline(t, updated=None):
        published = START - timedelta(days=rng.randint(1, 5 * 365))
        if updated:
            return (f'<p class="dateline">Updated <time datetime="{updated:%Y-%m-%d}">'
                    f'{updated:%d %B %Y, %H:%M}</time></p>')
        return (f'<p class="dateline">Published <time datetime="{published:%Y-%m-%d}">'
                f'{published:%d %B %Y}</time></p>')

    pages, statics, article_scripts = [], [], []
    stats = {"original": 0, "remix": 0, "shell-copy": 0, "shell": 0, "copies": 0, "recaptures": 0}
    static_bases = []  # (page, title, paragraph texts) of bases a shell may copy
    clock = START
    serial = 0
    remix_at = 0

    def hexid(k=16):
        return "%0*x" % (k, rng.getrandbits(4 * k))

    def add(page):
        pages.append(page)
        if len(pages) < n and rng.random() < 0.02:
            later = page.time + timedelta(days=rng.randint(1, 30), seconds=rng.randint(0, 86399))
            kind = "shell+recapture" if page.kind.startswith("shell") else "recapture"
            pages.append(Page(page.url, later, page.group, kind, page.template,
                              page.values, page.body))
            stats["recaptures"] += 1

    while len(pages) < n:
        serial += 1
        group = f"g{serial:06d}"
        clock += timedelta(seconds=rng.randint(1, 6))
        if rng.random() < 0.05:
            # a script-built page: half copy a static base's article, half their own
            shares = [b for b in static_bases if not b[3]]
            if shares and rng.random() < 0.5:
                base = shares[rng.randrange(len(shares))]
                base[3] = True
                page0, title, texts = base[0], base[1], base[2]
                host = urlparse_host(page0.url)
                group, kind = page0.group, "shell-copy"
                lang = page0.template.language
            else:
                host = SITES[rng.randrange(len(SITES))][0]
                lang = big[rng.randrange(len(big))]
                texts = [x for slot in draw(lang, [0] * rng.randint(4, 10), None) for x in slot]
                title = make_title(rng, texts)
                kind = "shell"
            k = len(article_scripts) + 1
            url = f"https://{host}/app/{slug(title, 'story')}-{serial}"
            body = shell_html(site_name[host], lang if lang in STOP else "en", k, host_version[host])
            page = Page(url, clock, group, kind, body=body)
            article_scripts.append((f"https://{host}/static/article-{k}.js",
                                    clock + timedelta(milliseconds=400),
                                    article_js(title, texts, site_name[host])))
            stats[kind] += 1
            add(page)
            copies = [] if rng.random() >= 0.10 else ["tracking", "http"][:rng.randint(1, 2)]
            for how in copies:
                if len(pages) >= n:
                    break
                later = clock + timedelta(seconds=rng.randint(60, 5 * 86400))
                if how == "http":
                    curl = "http://" + url[len("https://"):]
                else:
                    curl = url + "?" + tracking(rng, hexid)
                pages.append(Page(curl, later, group, "shell+" + how, body=body))
                stats["copies"] += 1
            continue
        if originals:
            t = originals.pop()
            title, texts, kind = t.title, t.texts, "original"
            paragraphs = t.paragraphs
            title_html, h1_html = t.original["title"], t.original["h1"]
        else:
            t = remixable[remix_at % len(remixable)]
            remix_at += 1
            slots = draw(t.language, [len(x) for x in t.texts], t.name)
            texts = [x for slot in slots for x in slot]
            title = make_title(rng, texts)
            # a slot that needs several paragraphs gets them as paragraphs of their own
            paragraphs = ["</p>\n<p>".join(html.escape(x, quote=False) for x in slot) for slot in slots]
            title_html = h1_html = html.escape(title, quote=False)
            kind = "remix"
        stats[kind] += 1
        host = host_of[t.name]
        v = host_version[host]
        head = (f'\n<link rel="stylesheet" href="/static/site.css">\n'
                f'<script src="/static/app.js?v={v}" defer></script>\n')
        if not t.has_title:
            head = f"\n<title>{html.escape(title, quote=False)}</title>" + head
        values = {"p": paragraphs, "title": title_html, "h1": h1_html, "head": head,
                  "banner": "", "dateline": dateline(t)}
        day = START - timedelta(days=rng.randint(1, 1500))
        path = f"/{day:%Y/%m}/{slug(title, 'page')}-{serial}/"
        url = f"https://{host}{path}"
        page = Page(url, clock, group, kind, t, values)
        add(page)
        if t.share >= 0.6 and len(texts) >= 3:
            static_bases.append([page, title, list(texts), False])
        if rng.random() < 0.10:
            used_http = False
            for _ in range(rng.randint(1, 3)):
                if len(pages) >= n:
                    break
                how = rng.choice(["tracking", "http", "mirror", "edit", "edit"])
                if how == "http" and used_http:
                    how = "tracking"
                later = clock + timedelta(seconds=rng.randint(60, 10 * 86400))
                cv = dict(values)
                if how == "tracking":
                    curl = url + "?" + tracking(rng, hexid)
                elif how == "http":
                    used_http = True
                    curl = "http://" + url[len("https://"):]
                elif how == "mirror":
                    mirror = MIRRORS[rng.randrange(len(MIRRORS))]
                    curl = f"https://{mirror}/{host}{path}"
                    cv["banner"] = (f'<div class="mirror-note">Mirrored from <a href="{url}">{url}</a> '
                                    f'on {later:%d %b %Y}.</div>')
                    cv["head"] = values["head"].replace(f"?v={v}", f"?v={host_version[mirror]}")
                else:
                    edits = rng.choice([["date"], ["banner"], ["date", "banner"]])
                    if "date" in edits:
                        cv["dateline"] = dateline(t, updated=later)
                    if "banner" in edits:
                        cv["banner"] = BANNERS[rng.randrange(len(BANNERS))]
                    curl = url + rng.choice(["index.html", "?output=amp", "?ref=frontpage", "?page=1"])
                    how = "edit:" + "+".join(edits)
                pages.append(Page(curl, later, group, how, t, cv))
                stats["copies"] += 1
                if len(pages) < n and rng.random() < 0.02:
                    pages.append(Page(curl, later + timedelta(days=rng.randint(1, 30)), group,
                                      "recapture", t, cv))
                    stats["recaptures"] += 1
    del pages[n:]

    # subresources and the records that are not pages
    for host in [h for h, _ in SITES] + MIRRORS:
        t0 = START + timedelta(seconds=rng.randint(0, 30))
        v = host_version[host]
        statics.append((f"https://{host}/static/site.css", t0, 200, "text/css", site_css(host), {}))
        statics.append((f"https://{host}/static/app.js?v={v}", t0 + timedelta(seconds=1), 200,
                        "application/javascript", app_js(v), {}))
        statics.append((f"https://{host}/static/logo.png", t0 + timedelta(seconds=2), 200,
                        "image/png", PNG, {}))
        statics.append((f"https://{host}/robots.txt", t0 - timedelta(seconds=5), 200,
                        "text/plain", b"User-agent: *\nDisallow: /admin/\n", {}))
    for url, t, body in article_scripts:
        statics.append((url, t, 200, "application/javascript", body, {}))
    extra = max(2, n // 1000)
    page_urls = [p.url for p in pages if p.kind in ("original", "remix")]
    for i in range(extra):
        host = SITES[i % len(SITES)][0]
        t = START + timedelta(seconds=rng.randint(0, max(60, (clock - START).seconds)))
        statics.append((f"https://{host}/archive/removed-{i + 1}.html", t, 404,
                        "text/html; charset=utf-8",
                        b"<!DOCTYPE html><html><head><title>Not found</title></head><body>"
                        b"<h1>404 Not Found</h1><p>The page you asked for is not here.</p></body></html>",
                        {}))
        if page_urls:
            target = page_urls[rng.randrange(len(page_urls))]
            statics.append((f"https://{urlparse_host(target)}/story/{i + 1}", t, 301,
                            "text/html; charset=utf-8",
                            f'<html><body>Moved to <a href="{target}">{target}</a></body></html>'.encode(),
                            {"Location": target}))
    statics.append((f"https://{SITES[0][0]}/api/stats.json", START + timedelta(seconds=40), 200,
                    "application/json", b'{"visitors": 1234, "articles": 56}', {}))
    return pages, statics, stats, rng


def urlparse_host(url):
    return url.split("://", 1)[1].split("/", 1)[0]


def tracking(rng, hexid):
    pattern = TRACKING[rng.randrange(len(TRACKING))]
    return pattern.format(n=rng.randint(1, 52), h=hexid(16), h2=hexid(10))


def write(out, n, seed):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    started = time.time()
    pages, statics, stats, rng = build(n, seed)
    ids = random.Random(f"{seed}-ids")

    def record_id():
        return f"<urn:uuid:{uuid.UUID(int=ids.getrandbits(128), version=4)}>"

    entries = [(p.time, 0, i) for i, p in enumerate(pages)]
    entries += [(s[1], 1, i) for i, s in enumerate(statics)]
    entries.sort()
    records = 0
    with open(out, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        info = io.BytesIO()
        for k, v in [("software", "twinpage scripts/crawl-corpus.py (warcio)"),
                     ("format", "WARC File Format 1.0"),
                     ("description", f"benchmark crawl: {n} pages, seed {seed}"),
                     ("isPartOf", "twinpage-bench")]:
            info.write(f"{k}: {v}\r\n".encode())
        writer.write_record(writer.create_warc_record(
            "", "warcinfo", payload=io.BytesIO(info.getvalue()), length=len(info.getvalue()),
            warc_headers_dict={"WARC-Record-ID": record_id(), "WARC-Date": warc_date(START),
                               "WARC-Filename": os.path.basename(out)}))
        records += 1
        for when, what, i in entries:
            if what == 0:
                p = pages[i]
                url, status, ctype, body, extra = p.url, 200, "text/html; charset=utf-8", p.html(), {}
            else:
                url, when, status, ctype, body, extra = statics[i]
            reason = {200: "OK", 301: "Moved Permanently", 404: "Not Found"}[status]
            headers = [("Date", http_date(when)), ("Server", "nginx/1.24.0"),
                       ("Content-Type", ctype), ("Content-Length", str(len(body)))]
            headers += list(extra.items())
            if status == 200 and ctype.startswith("text/html"):
                headers.append(("Cache-Control", "max-age=300"))
            resp = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), length=len(body),
                http_headers=StatusAndHeaders(f"{status} {reason}", headers, protocol="HTTP/1.1"),
                warc_headers_dict={"WARC-Record-ID": record_id(), "WARC-Date": warc_date(when)})
            host = urlparse_host(url)
            target = "/" + url.split("://", 1)[1].split("/", 1)[1] if "/" in url.split("://", 1)[1] else "/"
            accept = "text/html,application/xhtml+xml,*/*;q=0.8" if what == 0 else "*/*"
            req = writer.create_warc_record(
                url, "request", payload=io.BytesIO(b""), length=0,
                http_headers=StatusAndHeaders(f"GET {target} HTTP/1.1", [
                    ("Host", host),
                    ("User-Agent", "Mozilla/5.0 (compatible; twinpage-bench/1.0)"),
                    ("Accept", accept), ("Accept-Language", "en,de;q=0.8")],
                    is_http_request=True),
                warc_headers_dict={"WARC-Record-ID": record_id(), "WARC-Date": warc_date(when)})
            writer.write_request_response_pair(req, resp)
            records += 2
    truth = re.sub(r"\.warc(\.gz)?$", "", out) + ".truth.csv"
    with open(truth, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["url", "group", "kind"])
        for p in sorted(pages, key=lambda p: p.time):
            w.writerow([p.url, p.group, p.kind])
    groups = {}
    for p in pages:
        groups[p.group] = groups.get(p.group, 0) + 1
    planted = sum(c * (c - 1) // 2 for c in groups.values())
    print(f"wrote {out}: {len(pages)} pages ({stats['original']} real, {stats['remix']} remixed, "
          f"{stats['shell']} + {stats['shell-copy']} script-built, {stats['copies']} near-copies, "
          f"{stats['recaptures']} re-captures; {sum(1 for c in groups.values() if c > 1)} planted "
          f"groups, {planted} planted pairs), {records} records, {os.path.getsize(out):,} bytes, "
          f"{time.time() - started:.1f} s")
    print(f"wrote {truth}")


def export_pages(crawl, out):
    from warcio.archiveiterator import ArchiveIterator

    pages_dir = os.path.join(out, "pages")
    os.makedirs(pages_dir, exist_ok=True)
    count = 0
    with open(crawl, "rb") as f, open(os.path.join(out, "docs.csv"), "w", newline="",
                                      encoding="utf-8") as docs:
        w = csv.writer(docs)
        w.writerow(["url", "html"])
        for record in ArchiveIterator(f):
            if record.rec_type != "response" or not record.http_headers:
                continue
            if record.http_headers.get_statuscode() != "200":
                continue
            if not (record.http_headers.get_header("Content-Type") or "").startswith("text/html"):
                continue
            count += 1
            name = f"pages/{count:06d}.html"
            with open(os.path.join(out, name), "wb") as page:
                page.write(record.content_stream().read())
            w.writerow([record.rec_headers.get_header("WARC-Target-URI"), name])
    print(f"wrote {count} pages to {pages_dir} and {os.path.join(out, 'docs.csv')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="OUT.warc.gz (the crawl to write, or with --export-pages to read)")
    ap.add_argument("--pages", type=int, default=10_000, help="HTML pages (status 200) in the crawl")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--export-pages", metavar="DIR",
                    help="write the crawl's pages as DIR/pages/*.html and DIR/docs.csv instead")
    args = ap.parse_args()
    try:
        import warcio  # noqa: F401
    except ImportError:
        sys.exit("crawl-corpus.py needs warcio: pip install warcio")
    if args.export_pages:
        export_pages(args.out, args.export_pages)
    else:
        write(args.out, args.pages, args.seed)


if __name__ == "__main__":
    main()
