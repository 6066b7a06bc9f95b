"""Render each fixture in headless Chromium and compare fetched vs visible text.

Usage: python3 check_render.py *.html        (from tests/walls/; needs only Python 3
and Chromium; set CHROME to override /usr/bin/chromium)

Each file is opened in a fresh tab of ONE fresh browser profile, via the DevTools
protocol over --remote-debugging-pipe (no websocket library needed). For each page it
prints one JSON line: words of body.innerText after scripts ran (`words`), words of
text in the fetched HTML outside <head>/<script>/<style>/<noscript>
(`fetched_words`), the classes on <html>/<body>, and the computed display of
#page (the element the consent wall hides). Nothing is clicked, so consent walls stay up.
"""
import json, os, shutil, subprocess, sys, tempfile, time, re, html as H

CHROME = os.environ.get('CHROME', '/usr/bin/chromium')

class CDP:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix='twinpage-walls-')
        r1, w1 = os.pipe()  # we write -> chrome fd3
        r2, w2 = os.pipe()  # chrome fd4 -> we read
        self.p = subprocess.Popen([CHROME, '--headless=new', '--no-sandbox', '--disable-gpu',
            '--remote-debugging-pipe', '--user-data-dir=' + self.profile,
            '--no-first-run', 'about:blank'],
            pass_fds=tuple(sorted({r1, w2, 3, 4})), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: (os.dup2(r1, 3), os.dup2(w2, 4)))
        os.close(r1); os.close(w2)
        self.w = os.fdopen(w1, 'wb', buffering=0); self.r = os.fdopen(r2, 'rb', buffering=0)
        self.buf = b''; self.id = 0
    def _read(self):
        while b'\0' not in self.buf:
            chunk = self.r.read(65536)
            if not chunk: raise RuntimeError('chrome closed')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)
    def call(self, method, params=None, session=None):
        self.id += 1; mid = self.id
        m = {'id': mid, 'method': method, 'params': params or {}}
        if session: m['sessionId'] = session
        self.w.write(json.dumps(m).encode() + b'\0')
        while True:
            msg = self._read()
            if msg.get('id') == mid:
                if 'error' in msg: raise RuntimeError(msg['error'])
                return msg['result']
    def close(self):
        try: self.call('Browser.close')
        except Exception: pass
        try: self.p.wait(10)
        finally: shutil.rmtree(self.profile, ignore_errors=True)

JS = r'''(() => {
  const b = document.body;
  const txt = b ? b.innerText : '';
  const pg = document.getElementById('page');
  return JSON.stringify({
    title: document.title,
    htmlClass: document.documentElement.className,
    bodyClass: b ? b.className : null,
    words: txt.split(/\s+/).filter(Boolean).length,
    pageDisplay: pg ? getComputedStyle(pg).display : null,
    bodyOverflow: b ? getComputedStyle(b).overflow : null,
    text: txt.replace(/\s+/g, ' ').slice(0, 400)
  });
})()'''

def fetched_words(path):
    t = open(path, encoding='utf-8').read()
    t = re.sub(r'(?is)<(script|style|noscript|template)\b.*?</\1>', ' ', t)
    t = re.sub(r'(?is)<head\b.*?</head>', ' ', t)
    t = re.sub(r'<[^>]+>', ' ', t)
    return len(H.unescape(t).split())

def main(paths):
    c = CDP()
    try:
        for path in paths:
            tgt = c.call('Target.createTarget', {'url': 'about:blank'})['targetId']
            s = c.call('Target.attachToTarget', {'targetId': tgt, 'flatten': True})['sessionId']
            c.call('Page.enable', session=s)
            c.call('Page.navigate', {'url': 'file://' + os.path.abspath(path)}, session=s)
            time.sleep(2.0)  # let load handlers / timers run
            r = c.call('Runtime.evaluate', {'expression': JS, 'returnByValue': True}, session=s)
            info = json.loads(r['result']['value'])
            info['fetched_words'] = fetched_words(path)
            info['file'] = os.path.basename(path)
            print(json.dumps(info, ensure_ascii=False))
            c.call('Target.closeTarget', {'targetId': tgt})
    finally:
        c.close()

if __name__ == '__main__':
    main(sys.argv[1:])
