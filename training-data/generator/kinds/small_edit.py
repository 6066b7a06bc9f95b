"""small-edit (label 1): a few typos, one sentence dropped or reworded, markup and
whitespace changes (<b> to <strong>, <br> forms, comments dropped), at a slightly
different URL.

Near-duplicates by a small edit: a duplicate need not be byte-identical.
"""
import re
from urllib.parse import urlunsplit

from ..builder import derive
from ..core import add_query, apply_edits, url_parts
from ..htmltext import core_spans, find_in_spans
from ..lang import SYN
from ..pages import has_located_core

KIND = 'small-edit'
LABEL = 1
TARGET = 170

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['mirror', 'dynamic', 'prepend']
FULL_SIZE = True            # its copies count against the page's budget of full-size documents
SITES_FIRST = True          # pages of sites with several pages first (the copy also makes same-site pairs)
eligible = has_located_core

# words a rewording drops, and "x and y" swapped
ADVERBS = {'en': ['very', 'really', 'also', 'just', 'quite', 'actually'],
           'de': ['sehr', 'auch', 'eigentlich', 'wirklich', 'ganz', 'noch'],
           'fr': ['très', 'vraiment', 'aussi', 'encore'], 'es': ['muy', 'realmente', 'también', 'ya'],
           'it': ['molto', 'davvero', 'anche'], 'pt': ['muito', 'realmente', 'também']}
AND = {'en': 'and', 'de': 'und', 'fr': 'et', 'es': 'y', 'it': 'e', 'pt': 'e', 'nl': 'en'}


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


def transform(doc, rng, ctx):
    s = doc.html
    core = core_spans(s)
    if not core:
        return None
    cb, _, spans = core
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
