"""app-shell (label 0): two pages of the same app shell (one template instance: nav, footer,
CSS, script code, placeholder, usually the same generic title) whose data are two
different articles of the split (70 % of one site when it has several pages, else mostly
of one language); some reuse the shell page of a client-rendered pair as one side.

Their fetched text is identical and their fetched HTML differs only in the data;
rendered, they are two different articles.
"""
from collections import defaultdict

from ..builder import REF_GZ, attempts
from ..shells import Shell, shell_doc, shell_pages, shell_url, shell_variant

KIND = 'app-shell'
LABEL = 0
TARGET = 150


def build(B, split, pages, want, shells):
    """The split's app-shell pairs (shells: those of the client-rendered pairs, by page id)."""
    el = shell_pages(pages)
    by_group = defaultdict(list)
    by_lang = defaultdict(list)
    for p in el:
        by_group[p.group].append(p)
        by_lang[p.lang].append(p)
    for x, r, _ in attempts(B, split, KIND, el, want, needs_room=False, per_pair=8, stream=('scripts',)):
        same = [q for q in by_group[x.group] if B.distinct(x, q)]
        lang = [q for q in by_lang[x.lang] if B.distinct(x, q)]
        pool = same if same and r.random() < 0.7 else (lang if lang and r.random() < 0.8 else
                                                        [q for q in el if B.distinct(x, q)])
        if not pool:
            continue
        y = r.choice(pool)
        if y.gz > REF_GZ and r.random() > REF_GZ / y.gz:
            y = r.choice(pool)
        if not B.distinct(x, y):
            continue
        reuse = [sd for sd in shells.get(x.id, []) if sd[0].delivery in ('attr-b64', 'inline-b64', 'inline-chunks',
                                                                         'fetch-json', 'xhr-json')]
        if reuse and r.random() < 0.4:
            shell, dx = r.choice(reuse)
        else:
            shell = Shell(x, r, ['attr-b64', 'attr-b64', 'inline-b64', 'inline-chunks', 'fetch-json', 'fetch-json'],
                          hybrid_ok=B.script_room(x))
            dx = shell_doc(B, shell, x, r, shell_url(shell, x, r, x.ctitle))
            if shell.tpl == 'hybrid':
                B.script_docs[x.id] += 1
        uy = shell_url(shell, y, r, y.ctitle)
        dy = shell_doc(B, shell, y, r, uy)
        if B.add_pair(split, KIND, LABEL, dx, dy, shell_variant(shell)):
            if shell.tpl == 'hybrid':
                B.script_docs[x.id] += 1
