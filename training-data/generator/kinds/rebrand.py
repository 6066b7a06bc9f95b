"""rebrand (label 1): consistent word replacement over the whole page, the site name/brand
and a few frequent words replaced everywhere, on the new brand's host.

Re-branding, a source of duplicates the Henzinger patent names: the same text under
another name, which word-level measures see as many small differences.
"""
import re
from urllib.parse import urlsplit

from ..builder import derive
from ..core import apply_edits, effective_url, esc, regdom, slugify, with_host
from ..htmltext import find_in_spans, text_spans, tokenize
from ..lang import ALL_STOP, SYN
from ..pages import has_text

KIND = 'rebrand'
LABEL = 1
TARGET = 170

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['dynamic', 'small-edit', 'prepend']
FULL_SIZE = True            # its copies count against the page's budget of full-size documents
SITES_FIRST = False         # pages of sites with several pages not tried first (the copy is on another host)
eligible = has_text

# the new brands, by language
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


def replace_everywhere(s, mapping, spans_all, toks):
    """Replace whole words (mapping: exact string -> replacement) in visible text, title and
    some attributes (toks: the tokens of s). Returns (new string, number of replacements)."""
    if not mapping:
        return s, 0
    keys = sorted(mapping, key=len, reverse=True)
    rx = re.compile(r'(?<![\w])(' + '|'.join(re.escape(k) for k in keys) + r')(?![\w])')
    edits = []
    for a, b, w in find_in_spans(s, spans_all, rx):
        edits.append((a, b, mapping[w]))
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


def transform(doc, rng, ctx):
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
