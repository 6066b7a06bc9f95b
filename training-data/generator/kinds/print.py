"""print (label 1): the core content alone in a minimal print template with the title, at
a print URL (/print/, ?print=1, print.php?id=...).

The Google patent's version "optimized for printing": the same content sharing almost no
markup with the page.
"""
from urllib.parse import urlunsplit

from ..builder import Doc
from ..core import MARK_E, MARK_S, add_query, esc, url_parts
from ..htmltext import extract_text
from ..lang import loc, rand_date
from ..pages import has_core_fragment, print_body

KIND = 'print'
LABEL = 1
TARGET = 172

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['small-edit', 'prepend']
FULL_SIZE = False           # small: only the core
SITES_FIRST = True          # pages of sites with several pages first (print versions also make same-site pairs)
eligible = has_core_fragment


def transform(doc, rng, ctx):
    page = doc.page
    body = print_body(page)
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
