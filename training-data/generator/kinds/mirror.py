"""mirror (label 1): the page on another host, with its links rewritten to that host,
sometimes a <base>, a mirror banner, or an archive snapshot with scripts stripped.

Mirrors are the first source of duplicates the Henzinger patent names.
"""
import re
from urllib.parse import urlsplit, urlunsplit

from ..builder import derive
from ..core import esc, regdom, url_parts, with_host
from ..htmltext import body_open_end
from ..lang import loc, rand_date
from ..pages import has_text

KIND = 'mirror'
LABEL = 1
TARGET = 170

# one-page positive: pairs.one_page_pairs() draws the pages and pairs the page as served
# with transform()'s copy of it, layering one of SECONDARY on a quarter of them (`variant`)
SECONDARY = ['small-edit', 'dynamic', 'prepend']
FULL_SIZE = True            # its copies count against the page's budget of full-size documents
SITES_FIRST = False         # pages of sites with several pages not tried first (the copy is on another host)
eligible = has_text

MIRROR_HOSTS = ['webmirror.org', 'mirrorhub.net', 'sitecopy.net', 'pagevault.org', 'cachepoint.io',
                'netzspiegel.de', 'miroir-web.fr', 'espejo.net', 'mirror.unet-archive.org',
                'copies.openpages.net', 'replica-web.com', 'mirrors.fastpage.eu']
SNAPSHOT_HOSTS = ['snapshots.pagevault.org', 'archive.webkeep.net', 'saved.pagetime.io', 'frozen.sitecopy.net']


def transform(doc, rng, ctx):
    s = doc.html
    sc, host, path, q, fr = url_parts(doc.url)
    bare = host[4:] if host.startswith('www.') else host
    style = rng.choices(['host', 'path', 'sub', 'snapshot'], [3, 3, 2, 3])[0]
    d8, _ = rand_date(rng, doc.lang, 2016, 2024)
    L = loc(doc.lang)
    if style == 'host':
        mh = bare.replace('.', '-') + '.' + rng.choice(MIRROR_HOSTS)
        new_url = with_host(doc.url, mh, 'https')
    elif style == 'path':
        mh = rng.choice(MIRROR_HOSTS)
        new_url = urlunsplit(('https', mh, '/' + bare + path, q, ''))
    elif style == 'sub':
        rd = regdom(host)
        mh = rng.choice(['www2.', 'mirror.', 'web2.', 'eu.', 'us.', 'm.']) + rd
        if mh == host:
            mh = 'www3.' + rd
        new_url = with_host(doc.url, mh)
    else:
        mh = rng.choice(SNAPSHOT_HOSTS)
        ts = '%04d%02d%02d%02d%02d%02d' % (rng.randint(2016, 2024), rng.randint(1, 12), rng.randint(1, 28),
                                           rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        new_url = 'https://%s/%s/%s' % (mh, ts, doc.url)
    nh = urlsplit(new_url).hostname
    # rewrite absolute links to the mirror
    if style == 'snapshot':
        prefix = new_url[:new_url.find('/http') + 1] if '/http' in new_url else 'https://%s/' % nh
        s = re.sub(r'(\shref\s*=\s*["\'])(https?://)', lambda m: m.group(1) + prefix + m.group(2), s, flags=re.I)
        # static snapshot: scripts removed (as archivers do)
        s = re.sub(r'(?is)<script\b(?![^>]*application/ld\+json)[^>]*>.*?</script\s*>', '', s)
    else:
        pat = re.compile(r'(https?:)?//(?:www\.)?' + re.escape(bare) + r'(?=[/"\'?#:\s<)]|$)', re.I)
        repl_host = nh if style != 'path' else '%s/%s' % (nh, bare)
        s = pat.sub(lambda m: (m.group(1) or '') + '//' + repl_host, s)
    # a base element and/or banner
    if rng.random() < 0.4 and style != 'snapshot':
        hm = re.search(r'<head\b[^>]*>', s, re.I)
        base = '<base href="%s">' % esc(new_url.rsplit('/', 1)[0] + '/')
        s = re.sub(r'<base\b[^>]*>', '', s, flags=re.I)
        if hm:
            s = s[:hm.end()] + base + s[hm.end():]
    if style == 'snapshot' or rng.random() < 0.55:
        msg = (L['snapshot'] if style == 'snapshot' else L['mirror']).format(u=esc(doc.url), d=d8)
        banner = ('\n<div id="mirror-banner" style="background:#ffc;border-bottom:1px solid #cc9;'
                  'padding:4px 8px;font:12px sans-serif">%s <a href="%s">%s</a></div>\n'
                  % (msg, esc(doc.url), esc(bare)))
        k = body_open_end(s)
        s = s[:k] + banner + s[k:]
    d = derive(doc, s, new_url, step='mirror:' + style)
    return d
