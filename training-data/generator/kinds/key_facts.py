"""key-facts (label 0): the same page with several numbers, dates, prices and person names
in the core changed consistently (also in title and headline), at a sibling URL; sometimes
against a duplicate version of the original (`variant`).

Two product pages or two reports of one template: near-identical text whose few
differences are exactly what makes them different documents.
"""
import re
from collections import Counter
from urllib.parse import urlunsplit

from . import second
from ..builder import attempts, derive, original
from ..core import add_query, apply_edits, change_number, sibling_url, slugify, url_parts
from ..htmltext import core_bounds, core_spans, find_in_spans, headings, text_spans, tokenize
from ..lang import ALL_STOP, NAMES2
from ..pages import has_located_core

KIND = 'key-facts'
LABEL = 0
TARGET = 260
eligible = has_located_core

# numbers in text, and capitalised word pairs (people's names when the first is a first name)
NUM_RE = re.compile(r'(?<![\w.,:/-])\d+(?:[.,]\d+)*(?![\w:/])')
CAP_PAIR_RE = re.compile(r'(?<![\w])([A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ\'’-]{2,}) ([A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ\'’-]{2,})(?![\w])')

# made-up names of things (the fallback when a page has few numbers)
NAMES1 = ['Lisbon', 'Graz', 'Leeds', 'Valencia', 'Tampere', 'Utrecht', 'Brno', 'Porto', 'Cork', 'Malmö',
          'Bergamo', 'Ghent', 'Aarhus', 'Bremen', 'Lyon', 'Krakow', 'Salzburg', 'Dundee', 'Bilbao',
          'Freiburg', 'Turin', 'Basel', 'Nantes', 'Halifax', 'Odense', 'Linz', 'Aachen', 'Quimper',
          'Hartley', 'Morrison', 'Castell', 'Brenner', 'Ashford', 'Kramer', 'Delacroix', 'Whitfield']


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


def transform(doc, rng, ctx, numbers_only=False):
    """The page with its key facts changed (numbers_only: figures, see figures.py)."""
    s = doc.html
    core = core_spans(s)
    if not core:
        return None
    spans = core[2]
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
    for st, t in headings(toks2, ('h1',)):
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


def build(B, split, pages, want, ctx, first):
    """The split's key-facts pairs; pages in `first` are tried first."""
    el = [p for p in pages if eligible(p)]
    for p, r, _ in attempts(B, split, KIND, el, want, first):
        base = original(p)
        k = transform(base, r, ctx)
        if k is None:
            B.fail[KIND + ':n/a'] += 1
            continue
        k, sec = second(k, r, ctx, ['dynamic', 'small-edit'], 0.15)
        B.add_pair(split, KIND, LABEL, base, k, sec)
        B.kf_docs[p.id].append(k)
        B.derived[p.id] += 1
        # the changed page against another (duplicate) version of the original
        vs = [(kind, d) for kind, d in B.variants.get(p.id, []) if kind in ('dynamic', 'small-edit', 'prepend', 'mirror')]
        if vs and r.random() < 0.6 and B.count(split, KIND) < want:
            kind, d = r.choice(vs)
            B.add_pair(split, KIND, LABEL, d, k, kind)
