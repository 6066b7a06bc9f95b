"""App shells: a page whose body holds only the site's chrome and a loading placeholder,
and whose inline script builds the article into the DOM from data (a JSON literal, base64,
chunks, an attribute, or a sibling JSON file got with fetch()/XMLHttpRequest), in several
templates, payload shapes and timings.

Shared by the two kinds whose truth depends on rendering them: client-rendered (a shell
against the page it renders) and app-shell (one shell instance with two articles).
"""
import base64
import json
import random
import re
from urllib.parse import urlsplit

from .builder import Doc
from .core import MARK_E, MARK_S, add_query, apply_edits, effective_url, esc, site_key, slugify, url_slug
from .htmltext import BASE_RE, Tree, body_close_start, clean_fragment, core_bounds, extract_text, headings, set_title, tokenize
from .lang import NAMES2, loc, rand_date
from .pages import has_core_fragment, print_body, site_from

PLACEHOLDERS = {
    'en': ['Loading\u2026', 'Loading article\u2026', 'Please wait\u2026', 'Loading, please wait', 'One moment\u2026',
           'Fetching the latest story\u2026', 'Loading content', ''],
    'de': ['Wird geladen \u2026', 'Artikel wird geladen \u2026', 'Bitte warten \u2026', 'Inhalt wird geladen', ''],
    'fr': ['Chargement\u2026', 'Chargement de l\u2019article\u2026', 'Veuillez patienter\u2026', ''],
    'es': ['Cargando\u2026', 'Cargando artículo\u2026', 'Espere, por favor\u2026', ''],
    'it': ['Caricamento\u2026', 'Attendere prego\u2026', ''],
    'pt': ['Carregando\u2026', 'Aguarde\u2026', ''],
    'nl': ['Laden\u2026', 'Even geduld\u2026', ''],
    'pl': ['Ładowanie\u2026', 'Proszę czekać\u2026', ''],
    'zh': ['加载中\u2026', '正在加载\u2026', ''],
    'ja': ['読み込み中\u2026', 'しばらくお待ちください\u2026', ''],
}
NOSCRIPT = {
    'en': ['You need to enable JavaScript to run this app.',
           'We\u2019re sorry but {s} doesn\u2019t work properly without JavaScript enabled. Please enable it to continue.',
           'Please enable JavaScript to read this article.'],
    'de': ['Bitte aktivieren Sie JavaScript, um {s} zu nutzen.', 'JavaScript ist deaktiviert.'],
    'fr': ['Veuillez activer JavaScript pour afficher {s}.'],
    'es': ['Activa JavaScript para ver {s}.'],
}
FOOTER_L10N = {
    'en': ('All rights reserved.', ['About us', 'Contact', 'Privacy policy', 'Terms of use', 'Advertise', 'Careers']),
    'de': ('Alle Rechte vorbehalten.', ['Über uns', 'Kontakt', 'Datenschutz', 'Impressum', 'AGB', 'Werbung']),
    'fr': ('Tous droits réservés.', ['À propos', 'Contact', 'Confidentialité', 'Mentions légales', 'Publicité']),
    'es': ('Todos los derechos reservados.', ['Quiénes somos', 'Contacto', 'Privacidad', 'Aviso legal', 'Publicidad']),
    'it': ('Tutti i diritti riservati.', ['Chi siamo', 'Contatti', 'Privacy', 'Note legali']),
    'pt': ('Todos os direitos reservados.', ['Quem somos', 'Contato', 'Privacidade', 'Termos de uso']),
}
APP_NAMES = ['reader', 'news-app', 'frontend', 'web', 'client', 'story-app', 'pwa', 'spa', 'site']


def shell_pages(pages):
    """The pages a shell renders: a core that stands alone, and not a sliver of the page
    (the rendered article is the core)."""
    return [p for p in pages if has_core_fragment(p) and len(p.core_text) >= 0.08 * p.body_text_len]


def js_json(obj, ascii_only=True):
    """JSON that is safe inside an inline <script> (no '<', '>' or '&' characters)."""
    s = json.dumps(obj, ensure_ascii=ascii_only, separators=(',', ':'))
    return s.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026') \
        .replace('\u2028', '\\u2028').replace('\u2029', '\\u2029')


def b64(obj):
    return base64.b64encode(json.dumps(obj, ensure_ascii=False, separators=(',', ':')).encode('utf-8')).decode('ascii')


def chunked(s, rng, lo=60, hi=400):
    out, i = [], 0
    while i < len(s):
        k = rng.randint(lo, hi)
        out.append(s[i:i + k])
        i += k
    return out


def core_blocks(p):
    """The core text as (tag, text) blocks: short lines without closing punctuation are subheadings."""
    out = []
    for line in (p.core_text or '').split('\n'):
        line = line.strip()
        if len(line) < 2:
            continue
        head = len(line) <= 80 and not re.search(r'[.!?:;,\u3002\uff01\uff1f"\u201d\u2019)]$', line) \
            and len(line.split()) <= 12 and out
        out.append(('h2' if head else 'p', line))
    return out


def article_payload(p, schema, rng, title):
    """The article (title and core) as the data a client-side app would receive."""
    byline = p.byline if p.byline and len(p.byline) < 120 else (rng.choice(NAMES2) if rng.random() < 0.4 else '')
    date, ymd = rand_date(rng, p.lang, 2015, 2024)
    iso = '%04d-%02d-%02dT%02d:%02d:00Z' % (ymd[0], ymd[1], ymd[2], rng.randint(5, 22), rng.randint(0, 59))
    if schema in ('html', 'graphql'):
        body = print_body(p)
        if len(extract_text(body)) < max(200, 0.7 * len(p.core_text)):
            body = ''.join('<%s>%s</%s>' % (t, esc(x), t) for t, x in core_blocks(p))
        if schema == 'html':
            return {'t': title, 'a': byline, 'h': body, 'id': rng.randint(10000, 9999999)}
        return {'data': {'article': {'id': 'A%d' % rng.randint(100000, 999999), 'title': title,
                                     'author': {'name': byline} if byline else None, 'publishedAt': iso,
                                     'contentHtml': body, 'section': rng.choice(['news', 'features', 'blog', 'story'])}}}
    blocks = core_blocks(p)
    if schema == 'blocks':
        return {'title': title, 'byline': byline, 'published': date,
                'blocks': [{'type': t, 'text': x} for t, x in blocks]}
    return {'headline': title, 'author': byline, 'date': iso[:10], 'body': [[t, x] for t, x in blocks]}


# client-side renderers, one per payload schema; %MOUNT% is the mount element's id
RENDER_JS = {
    'blocks': '''function render(d){
  var root=document.getElementById('%MOUNT%');if(!root)return;
  var art=document.createElement('article');art.className='%ACLS%';
  var h=document.createElement('h1');h.textContent=d.title;art.appendChild(h);
  if(d.byline||d.published){var m=document.createElement('p');m.className='meta';
    m.textContent=[d.byline,d.published].filter(Boolean).join(' \\u00b7 ');art.appendChild(m);}
  for(var i=0;i<d.blocks.length;i++){var b=d.blocks[i],e=document.createElement(b.type);e.textContent=b.text;art.appendChild(e);}
  while(root.firstChild)root.removeChild(root.firstChild);
  root.appendChild(art);root.removeAttribute('aria-busy');%TITLE%
}''',
    'tuples': '''const esc=s=>String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function render(d){
  const el=document.getElementById('%MOUNT%');if(!el)return;
  el.innerHTML=`<article class="%ACLS%"><header><h1>${esc(d.headline)}</h1>`+
    (d.author?`<p class="byline">${esc(d.author)} <time>${esc(d.date)}</time></p>`:'')+'</header>'+
    d.body.map(([t,x])=>`<${t}>${esc(x)}</${t}>`).join('')+'</article>';
  el.classList.remove('is-loading');%TITLE%
}''',
    'html': '''function render(d){
  var el=document.getElementById('%MOUNT%');if(!el)return;
  var t=document.createElement('div');t.textContent=d.t;
  el.innerHTML='<div class="%ACLS%"><h1 class="entry-title">'+t.innerHTML+'</h1>'+
    (d.a?'<div class="entry-author">'+d.a.replace(/</g,'&lt;')+'</div>':'')+'<div class="entry-content">'+d.h+'</div></div>';%TITLE%
}''',
    'graphql': '''function render(res){
  var a=res&&res.data&&res.data.article;var el=document.getElementById('%MOUNT%');if(!a||!el)return;
  var f=document.createDocumentFragment(),h=document.createElement('h1');h.textContent=a.title;f.appendChild(h);
  if(a.author){var by=document.createElement('address');by.textContent=a.author.name;f.appendChild(by);}
  var body=document.createElement('section');body.className='%ACLS%';body.innerHTML=a.contentHtml;f.appendChild(body);
  el.textContent='';el.appendChild(f);el.setAttribute('data-loaded','true');%TITLE%
}''',
}
TITLE_JS = {'blocks': 'document.title=d.title+%SUFFIX%;', 'tuples': 'document.title=d.headline+%SUFFIX%;',
            'html': 'document.title=d.t+%SUFFIX%;', 'graphql': 'document.title=a.title+%SUFFIX%;'}
B64_JS = ('function unb64(s){var b=atob(s),u=new Uint8Array(b.length);'
          'for(var i=0;i<b.length;i++)u[i]=b.charCodeAt(i);return new TextDecoder(\'utf-8\').decode(u);}')


MOUNT_TOKEN = '\x00twp:mount\x00'


class Shell:
    """One app-shell instance: chrome, placeholder, script style and data delivery. The same
    instance with two articles gives two pages whose fetched HTML differs only in the data."""

    def __init__(self, page, rng, deliveries, hybrid_ok):
        self.page = page
        self.lang = page.lang
        L = loc(page.lang)
        self.rng_key = rng.getrandbits(32)
        # the page's own template around the mount point: only where the located core is the
        # article (no long paragraphs left outside it), so the shell's fetched text is boilerplate
        hybrid_ok = hybrid_ok and page.core_loc is not None and len(page.core_text) >= 0.3 * page.body_text_len \
            and page.outside_par <= 0.3 * len(page.core_text)
        self.headline = False
        self.tpl = rng.choices(['react-root', 'vue-app', 'skeleton', 'plain-ajax', 'hybrid'],
                               [3, 3, 2, 2, 4 if hybrid_ok else 0])[0]
        self.delivery = rng.choice(deliveries)
        if self.tpl == 'plain-ajax' and self.delivery == 'fetch-json':
            self.delivery = 'xhr-json'
        self.schema = rng.choice(['blocks', 'tuples', 'html', 'graphql'])
        self.timing = rng.choices(['dcl', 'dcl-timeout', 'load', 'ready-state'], [4, 3, 1, 2])[0]
        self.delay = rng.randint(100, 800)
        self.wrap = rng.choice(['iife', 'bang', 'plain', 'module'])
        self.mount = rng.choice(['root', 'app', 'main-content', 'article-root', 'story', '__next', 'page-app'])
        self.acls = rng.choice(['article', 'story-body', 'post', 'c-article', 'entry', 'ArticleBody', 'content-body'])
        self.title_mode = rng.choices(['generic', 'article'], [3, 2])[0]
        self.ascii = rng.random() < 0.6
        ph = PLACEHOLDERS.get(self.lang, PLACEHOLDERS['en'])
        self.placeholder = rng.choice(ph)
        ns = NOSCRIPT.get(self.lang, NOSCRIPT['en'])
        self.noscript = rng.choice(ns).format(s=page.site or 'this site') if rng.random() < 0.6 else ''
        self.bundle = '%x' % rng.getrandbits(40)
        self.app = rng.choice(APP_NAMES)
        self.host = (urlsplit(effective_url(page.url)).hostname or '').lower() or 'www.example.org'
        self.site = page.site or site_from(page.url, page.title)
        self.title_sep = rng.choice([' | ', ' - ', ' \u2013 ', ' \u00b7 '])
        self.dark = rng.random() < 0.2
        self.nav = self._nav(rng, L)
        self.footer = self._footer(rng)
        self.hybrid_base = self._hybrid_base(rng) if self.tpl == 'hybrid' else None
        if self.tpl == 'hybrid' and self.hybrid_base is None:
            self.tpl = 'react-root'
        if self.tpl == 'hybrid':
            # the page may already have an element with that id (skip-link targets are common)
            while re.search(r'\bid\s*=\s*["\']?%s(?![\w-])' % re.escape(self.mount), self.hybrid_base):
                self.mount += '-app'
        if self.tpl == 'hybrid' and self.delivery in ('fetch-json', 'xhr-json') and BASE_RE.search(page.text):
            self.delivery = 'attr-b64'     # a <base href> would send the relative data URL elsewhere
        if self.tpl == 'hybrid' and self.wrap == 'plain':
            self.wrap = 'iife'        # no globals next to the page's own scripts
        self.url_style = rng.choice(['app', 'mobile', 'query', 'appsub', 'story', 'articles'])
        self.qparam = rng.choice(['view=app', 'client=1', 'spa=1', 'render=client'])

    # ---- chrome

    def _real_fragment(self, tags, min_links, max_text):
        """The page's own nav / footer element (cleaned), if it has a usable one."""
        p = self.page
        tree = Tree(p.text)
        for el in tree.els:
            if el.tag not in tags or el.hidden or el.ce is None:
                continue
            inner = p.text[el.ie:el.ce]
            if len(inner) > 60000:
                continue
            frag = clean_fragment(inner, p.url)
            txt = extract_text(frag)
            nl = len(re.findall(r'<a\s', frag))
            if nl >= min_links and 20 <= len(txt) <= max_text and len(frag) < 12000 \
                    and not re.search(r'<h[12][\s>]', frag):
                return frag
        return ''

    def _nav(self, rng, L):
        real = ''
        if rng.random() < 0.6:
            real = self._real_fragment(('nav',), 3, 1500) or self._real_fragment(('header',), 3, 1500)
        if real:
            return real
        cats = L['cats'].split()
        items = rng.sample(cats, min(len(cats), rng.randint(4, 8)))
        return '<ul class="nav-list">%s</ul>' % ''.join(
            '<li><a href="/%s/">%s</a></li>' % (slugify(c), esc(c)) for c in items)

    def _footer(self, rng):
        real = self._real_fragment(('footer',), 1, 1500) if rng.random() < 0.5 else ''
        if real:
            return real
        rights, links = FOOTER_L10N.get(self.lang, FOOTER_L10N['en'])
        ls = rng.sample(links, min(len(links), rng.randint(3, 5)))
        return '<p>&copy; %d %s. %s</p><ul class="footer-links">%s</ul>' % (
            rng.randint(2018, 2025), esc(self.site), rights,
            ''.join('<li><a href="/%s">%s</a></li>' % (slugify(x), esc(x)) for x in ls))

    def _hybrid_base(self, rng):
        """The real page with its core replaced by the mount element (and the headline emptied)."""
        p = self.page
        s = p.marked()
        cb = core_bounds(s)
        if not cb:
            return None
        s = s[:cb[0] - len(MARK_S)] + MOUNT_TOKEN + s[cb[1] + len(MARK_E):]
        # headings outside the core that carry the title are filled in by the script
        tw = set(w.lower() for w in re.findall(r'\w{3,}', p.title or ''))
        edits = []
        if tw:
            for st, t in headings(tokenize(s)):
                words = set(w.lower() for w in re.findall(r'\w{3,}', extract_text(s[st[2]:t[1]])))
                if words and len(words & tw) >= max(1, 0.5 * len(tw)) and len(edits) < 2:
                    edits.append((st[1], t[2], '<%s class="js-headline"></%s>' % (st[3], st[3])))
        s = apply_edits(s, edits)
        self.headline = bool(edits)
        return s

    # ---- pieces of the page

    def mount_html(self, data_attr=''):
        ph = esc(self.placeholder)
        if self.tpl == 'skeleton' or (self.tpl == 'hybrid' and self.rng_key % 3 == 0):
            lines = ''.join('<div class="sk-line" style="width:%d%%"></div>' % (60 + (self.rng_key >> (i * 3)) % 40)
                            for i in range(6))
            inner = '<div class="sk-title"></div>%s%s' % (lines, '<span class="sr-only">%s</span>' % ph if ph else '')
            cls = 'skeleton'
        elif self.tpl == 'vue-app':
            inner = '<div class="page-loader"><span class="spinner" role="progressbar"></span>%s</div>' % (
                '<p>%s</p>' % ph if ph else '')
            cls = 'app-wrapper'
        elif self.tpl == 'plain-ajax':
            inner = '<p class="loading">%s</p>' % (ph or '&nbsp;')
            cls = 'content'
        else:
            inner = '<div class="app-loading"><div class="spinner"></div>%s</div>' % (
                '<span class="loading-text">%s</span>' % ph if ph else '')
            cls = 'app-root'
        return '<div id="%s" class="%s" aria-busy="true"%s>%s</div>' % (self.mount, cls, data_attr, inner)

    def script(self, payload, sibling):
        """Inline script(s) that render the article; payload is the data, sibling the JSON file name."""
        suffix = json.dumps(self.title_sep + self.site, ensure_ascii=True)
        rjs = RENDER_JS[self.schema].replace('%MOUNT%', self.mount).replace('%ACLS%', self.acls)
        tjs = TITLE_JS[self.schema].replace('%SUFFIX%', suffix)
        if self.tpl == 'hybrid' and self.headline:
            key = {'blocks': 'd.title', 'tuples': 'd.headline', 'html': 'd.t', 'graphql': 'a.title'}[self.schema]
            tjs += "var hs=document.querySelectorAll('.js-headline');for(var k=0;k<hs.length;k++)hs[k].textContent=%s;" % key
        rjs = rjs.replace('%TITLE%', tjs)
        pre = ''
        extra = ''
        dv = self.delivery
        if dv == 'inline-json':
            pre = 'var __INITIAL_STATE__=%s;' % js_json(payload, self.ascii)
            get = 'render(__INITIAL_STATE__)'
        elif dv == 'json-script':
            extra = '<script id="__APP_DATA__" type="application/json">%s</script>\n' % js_json(payload, self.ascii)
            get = "render(JSON.parse(document.getElementById('__APP_DATA__').textContent))"
        elif dv == 'inline-b64':
            pre = B64_JS + 'var __S="%s";' % b64(payload)
            get = 'render(JSON.parse(unb64(__S)))'
        elif dv == 'inline-chunks':
            if self.ascii:
                parts = chunked(b64(payload), random.Random(self.rng_key), 64, 256)
                pre = B64_JS + 'var __C=[%s];' % ','.join('"%s"' % c for c in parts)
                get = "render(JSON.parse(unb64(__C.join(''))))"
            else:
                parts = chunked(js_json(payload, True), random.Random(self.rng_key), 80, 300)
                pre = 'var __C=[%s];' % ',\n'.join(js_json(c, True) for c in parts)
                get = "render(JSON.parse(__C.join('')))"
        elif dv == 'attr-b64':
            pre = B64_JS
            get = "render(JSON.parse(unb64(document.getElementById('%s').getAttribute('data-state'))))" % self.mount
        elif dv == 'fetch-json':
            get = ("fetch('%s',{headers:{'Accept':'application/json'}}).then(function(r){return r.json();})"
                   ".then(render).catch(function(e){var el=document.getElementById('%s');"
                   "if(el)el.setAttribute('data-error',String(e));})" % (sibling, self.mount))
        elif dv == 'xhr-json':
            get = ("var x=new XMLHttpRequest();x.open('GET','%s');x.onload=function(){if(x.status==200)"
                   "render(JSON.parse(x.responseText));};x.send()" % sibling)
        else:
            raise ValueError(dv)
        if self.timing == 'dcl':
            boot = "document.addEventListener('DOMContentLoaded',function(){%s;});" % get
        elif self.timing == 'dcl-timeout':
            boot = "document.addEventListener('DOMContentLoaded',function(){setTimeout(function(){%s;},%d);});" % (
                get, self.delay)
        elif self.timing == 'load':
            boot = "window.addEventListener('load',function(){%s;});" % get
        else:
            boot = ("function boot(){%s;}\nif(document.readyState==='loading')"
                    "document.addEventListener('DOMContentLoaded',boot);else boot();" % get)
        stub = ("window.dataLayer=window.dataLayer||[];window.__APP__={name:'%s',build:'%s',locale:'%s'};"
                % (self.app, self.bundle, self.lang if self.lang != 'und' else 'en'))
        code = '%s\n%s\n%s\n%s' % (stub, pre, rjs, boot) if pre else '%s\n%s\n%s' % (stub, rjs, boot)
        if self.wrap == 'iife':
            code = '(function(){\n"use strict";\n%s\n})();' % code if self.schema != 'tuples' else '(function(){\n%s\n})();' % code
            tag = '<script>'
        elif self.wrap == 'bang':
            code = '!function(){\n%s\n}();' % code
            tag = '<script>'
        elif self.wrap == 'module':
            tag = '<script type="module">'
        else:
            tag = '<script>'
        return extra + tag + '\n' + code + '\n</script>'

    def css(self):
        bg, fg = ('#111', '#eee') if self.dark else ('#fff', '#222')
        return ('<style>*{box-sizing:border-box}body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",'
                'Roboto,sans-serif;background:%s;color:%s}header.site-header,footer.site-footer{padding:12px 24px}'
                '.nav-list,.footer-links{list-style:none;display:flex;gap:16px;margin:0;padding:0}'
                '#%s{max-width:760px;margin:24px auto;padding:0 16px;min-height:60vh}'
                '.spinner{width:32px;height:32px;border:3px solid #ccc;border-top-color:#0a66c2;border-radius:50%%;'
                'animation:spin 1s linear infinite}@keyframes spin{to{transform:rotate(360deg)}}'
                '.sk-title{height:32px;width:70%%;background:#e5e5e5;margin-bottom:16px}'
                '.sk-line{height:14px;background:#eee;margin:10px 0}'
                '.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}</style>'
                % (bg, fg, self.mount))

    def page_html(self, payload, sibling, article_title, url):
        """The shell around one article."""
        title = (article_title + self.title_sep + self.site) if self.title_mode == 'article' else self.site
        data_attr = ' data-state="%s"' % b64(payload) if self.delivery == 'attr-b64' else ''
        mount = self.mount_html(data_attr)
        script = self.script(payload, sibling)
        lang = self.lang if self.lang != 'und' else 'en'
        if self.tpl == 'hybrid':
            s = self.hybrid_base.replace(MOUNT_TOKEN, mount, 1)
            if self.title_mode == 'generic':
                s = set_title(s, self.site)
            k = body_close_start(s)
            return s[:k] + script + '\n' + s[k:]
        head = ('<!DOCTYPE html>\n<html lang="%s">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width,initial-scale=1">\n<title>%s</title>\n'
                '<link rel="icon" href="/favicon.ico">\n' % (lang, esc(title)))
        if self.title_mode == 'article':
            head += '<meta property="og:title" content="%s">\n<link rel="canonical" href="%s">\n' % (
                esc(article_title), esc(url))
        head += self.css() + '\n'
        noscript = '<noscript>%s</noscript>\n' % esc(self.noscript) if self.noscript else ''
        logo = '<a class="logo" href="/">%s</a>' % esc(self.site)
        if self.tpl == 'vue-app':
            body = ('<body>\n%s<header class="site-header">%s<nav>%s</nav></header>\n%s\n'
                    '<footer class="site-footer">%s</footer>\n%s\n</body>\n</html>\n'
                    % (noscript, logo, self.nav, mount, self.footer, script))
        elif self.tpl == 'plain-ajax':
            body = ('<body>\n<div id="wrapper">\n<div id="header"><h3>%s</h3>%s</div>\n'
                    '<div id="main">%s</div>\n<div id="footer">%s</div>\n</div>\n%s\n</body>\n</html>\n'
                    % (esc(self.site), self.nav, mount, self.footer, script))
        elif self.tpl == 'skeleton':
            body = ('<body class="app">\n<header class="site-header">%s<nav aria-label="main">%s</nav></header>\n'
                    '<main>%s</main>\n<footer class="site-footer">%s</footer>\n%s%s\n</body>\n</html>\n'
                    % (logo, self.nav, mount, self.footer, noscript, script))
            return head + '</head>\n' + body
        else:   # react-root: the script in the head, waiting for DOMContentLoaded
            if self.wrap == 'module' or self.timing in ('dcl', 'dcl-timeout', 'load'):
                head += script + '\n'
                script = ''
            body = ('<body>\n%s<div class="layout"><header class="site-header">%s<nav>%s</nav></header>\n'
                    '%s\n<footer class="site-footer">%s</footer></div>\n%s</body>\n</html>\n'
                    % (noscript, logo, self.nav, mount, self.footer, script + '\n' if script else ''))
            return head + '<script src="/static/js/%s.%s.js" defer></script>\n</head>\n' % (self.app, self.bundle[:8]) + body
        return head + '</head>\n' + body


def shell_url(shell, page, rng, title):
    """Where the shell page with page's article lives (the shell's host and URL scheme)."""
    host = shell.host
    rd = site_key('https://' + host)      # registered domain; the blog's own host on multi-tenant hosts
    slug = url_slug(title or page.site, rng)
    st = shell.url_style
    if st == 'query':
        if page is shell.page:
            return add_query(page.url, shell.qparam)
        return 'https://%s/%s?%s' % (host, slug, shell.qparam)
    if st == 'app':
        return 'https://%s/app/%s' % (host, slug)
    if st == 'mobile':
        return 'https://m.%s/%s' % (rd, slug)
    if st == 'appsub':
        return 'https://app.%s/read/%d' % (rd, rng.randint(10000, 9999999))
    if st == 'story':
        return 'https://%s/story/%s-%d' % (host, slug[:40].strip('-'), rng.randint(1000, 99999))
    return 'https://%s/articles/%s?id=%d' % (host, slug, rng.randint(100, 999999))


def shell_doc(B, shell, p, rng, url, title=None):
    """A client-rendered page: shell + page p's article as data (a sibling JSON file for fetch),
    under the article's own title unless another is given."""
    title = title or p.ctitle or p.title or p.site
    payload = article_payload(p, shell.schema, rng, title)
    sibling = ''
    if shell.delivery in ('fetch-json', 'xhr-json'):
        data = json.dumps(payload, ensure_ascii=False, indent=rng.choice([None, None, 1])).encode('utf-8')
        name = B.add_sibling(data, 'json')
        sibling = ('./' if rng.random() < 0.5 else '') + name[len('docs/'):]
    s = shell.page_html(payload, sibling, title, url)
    d = Doc(p, s, url, title, source=p.id, lang=p.lang)
    if shell.tpl == 'hybrid':
        d.charset_page = shell.page
    d.steps = ['shell:%s:%s:%s' % (shell.tpl, shell.delivery, shell.timing)]
    return d


def shell_variant(shell):
    parts = [shell.tpl, shell.delivery]
    if shell.timing == 'dcl-timeout':
        parts.append('timeout')
    return '+'.join(parts)
