"""client-rendered (label 1): side A is the real page (as served, or one of its dynamic,
small-edit or mirror copies), or for a quarter another script-built shell of the same
article under another title; side B is an app shell of the same site whose script builds
the article into the DOM (shells.py: templates, data delivery, timing).

Pages whose content arrives only through scripts look empty, or all alike, to fetched-body
signals: a model must learn when the rendered body overrules the fetched one.
"""
from ..builder import attempts
from ..lang import GENERIC_TITLES
from ..shells import Shell, shell_doc, shell_pages, shell_url, shell_variant

KIND = 'client-rendered'
LABEL = 1
TARGET = 150

SHELL_PAIR_RATE = 0.25      # client-rendered pairs whose other side is a script-built shell too


def build(B, split, pages, want):
    """The split's client-rendered pairs; returns the shells used for each page's
    client-rendered page, by page id (app-shell reuses them)."""
    titles = sorted({p.ctitle for p in pages if p.ctitle})
    el = shell_pages(pages)
    shells = {}
    for p, r, _ in attempts(B, split, KIND, el, want, needs_room=False, per_pair=8, stream=('scripts',)):
        shell = Shell(p, r, ['inline-json', 'json-script', 'inline-b64', 'inline-chunks', 'attr-b64',
                             'fetch-json', 'fetch-json'], hybrid_ok=B.script_room(p))
        va, da = B.page_or_near_copy(p, r)
        db = shell_doc(B, shell, p, r, shell_url(shell, p, r, p.ctitle))
        if r.random() < SHELL_PAIR_RATE:
            # both sides script-built, the same article under another title and shell
            other = Shell(p, r, ['inline-json', 'json-script', 'inline-b64', 'attr-b64', 'fetch-json'],
                          hybrid_ok=False)
            t = r.choice(GENERIC_TITLES.get(p.lang, GENERIC_TITLES['en']) + titles + [p.site or 'Home'])
            da = shell_doc(B, other, p, r, shell_url(other, p, r, t), title=t)
            va = 'shells:' + shell_variant(other).replace('+', ':')
        var = shell_variant(shell) + ('+' + va if va else '')
        if B.add_pair(split, KIND, LABEL, da, db, var):
            shells.setdefault(p.id, []).append((shell, db))
            if shell.tpl == 'hybrid':
                B.script_docs[p.id] += 1
    return shells
