// Runs in an isolated world after load + settle, so a page that redefines
// JSON, Array or Math cannot falsify the measurements. Returns one JSON string.
(() => {
  const root = document.documentElement;
  const body = document.body;

  const doctypeOf = (dt) => {
    if (!dt) return '';
    let text = '<!DOCTYPE ' + dt.name;
    if (dt.publicId) text += ' PUBLIC "' + dt.publicId + '"';
    if (dt.systemId) text += (dt.publicId ? '' : ' SYSTEM') + ' "' + dt.systemId + '"';
    return text + '>';
  };

  const nonSpaceLength = (text) => text.replace(/\s+/g, '').length;

  // twinpage keeps 4 MB of a rendered body (MAX_RENDERED_BYTES): no more crosses
  // the DevTools pipe. The cut never leaves half a surrogate pair.
  const kept = (text) => {
    const cut = text.length > 4194304 ? text.slice(0, 4194304) : text;
    return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
  };

  // The synthetic body is the DOM as the page left it, before measuring touches it.
  const synthetic = kept(root ? doctypeOf(document.doctype) + root.outerHTML : '');

  // An anti-flicker snippet hides the whole page (`html{visibility:hidden;opacity:0}`,
  // Google Optimize's `async-hide`) until a script from another host has run, or a
  // timer of several seconds has fired; a reader sees the page a moment later, a
  // render never. A root or body hidden whole is shown for measuring (inline and
  // important, so no class rule outweighs it). Keyword stuffing hides a part of a
  // page, never all of it.
  const wholeHidden = (e) => {
    if (!e) return false;
    const style = getComputedStyle(e);
    return style.visibility === 'hidden' || parseFloat(style.opacity) === 0;
  };
  for (const e of [root, body].filter(wholeHidden)) {
    e.style.setProperty('visibility', 'visible', 'important');
    e.style.setProperty('opacity', '1', 'important');
    e.style.setProperty('transition', 'none', 'important');
  }

  // The page area in CSS pixels: the full scroll size, never less than the viewport.
  const width = Math.max(root ? root.scrollWidth : 0, body ? body.scrollWidth : 0, innerWidth, 1);
  const height = Math.max(root ? root.scrollHeight : 0, body ? body.scrollHeight : 0, innerHeight, 1);

  // Coverage is a union of rectangles (images overlap, text lines overlap their
  // boxes), so rectangles are painted onto a coarse grid of at most ~250k cells.
  const cell = Math.max(4, Math.ceil(Math.sqrt((width * height) / 250000)));
  const columns = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const newGrid = () => new Uint8Array(columns * rows);
  const paint = (grid, rect) => {
    const left = Math.max(0, rect.left + scrollX);
    const top = Math.max(0, rect.top + scrollY);
    const right = Math.min(width, rect.right + scrollX);
    const bottom = Math.min(height, rect.bottom + scrollY);
    if (right <= left || bottom <= top) return;
    const c0 = Math.floor(left / cell), c1 = Math.ceil(right / cell);
    const r0 = Math.floor(top / cell), r1 = Math.ceil(bottom / cell);
    for (let r = r0; r < r1; r++) grid.fill(1, r * columns + c0, r * columns + c1);
  };
  const share = (grid) => {
    let covered = 0;
    for (let i = 0; i < grid.length; i++) covered += grid[i];
    return covered / grid.length;
  };
  const seen = (element) =>
    element.checkVisibility({ opacityProperty: true, visibilityProperty: true });

  const images = newGrid();
  for (const element of document.querySelectorAll('img, svg, canvas, video, input[type=image]')) {
    if (seen(element)) paint(images, element.getBoundingClientRect());
  }
  for (const element of document.querySelectorAll('*')) {
    if (getComputedStyle(element).backgroundImage.includes('url(') && seen(element)) {
      paint(images, element.getBoundingClientRect());
    }
  }

  // What a reader can see of an element's text. checkVisibility covers display,
  // visibility and opacity 0; keyword stuffing also hides text off the page, in
  // boxes clipped to nothing, in near-invisible fonts, nearly transparent, or in
  // the colour of its background. Ancestor facts are memoised per element.
  const facts = new Map();
  const rgba = (css) => {
    const m = css.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const v = m[1].split(/[ ,/]+/).filter((x) => x).map(parseFloat);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const intersect = (a, b) => ({
    left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom),
  });
  const pageBox = { left: 0, top: 0, right: width, bottom: height };
  const inDocument = (rect) => ({
    left: rect.left + scrollX, top: rect.top + scrollY,
    right: rect.right + scrollX, bottom: rect.bottom + scrollY,
  });
  // The page's own background: the body's colour, else the root's, else white.
  const pageBackground = () => {
    for (const e of [body, root]) {
      if (!e) continue;
      const style = getComputedStyle(e);
      if (style.backgroundImage !== 'none') return null;
      const colour = rgba(style.backgroundColor);
      if (colour && colour[3] > 0.5) return colour.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const pageFacts = { opacity: 1, box: pageBox, background: pageBackground(), hidden: false };
  const factsOf = (element) => {
    if (!element || element === root || element === body) return pageFacts;
    let known = facts.get(element);
    if (known) return known;
    const chain = [];
    for (let e = element; e && e !== root && e !== body && !facts.has(e); e = e.parentElement) chain.push(e);
    for (let i = chain.length - 1; i >= 0; i--) {
      const e = chain[i];
      const above = factsOf(e.parentElement);
      const style = getComputedStyle(e);
      const opacity = above.opacity * parseFloat(style.opacity || '1');
      let box = above.box;
      const rect = inDocument(e.getBoundingClientRect());
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') box = intersect(box, rect);
      const clip = style.clip.match(/rect\(([^)]+)\)/);
      if (clip && style.position.match(/absolute|fixed/)) {
        const [top, right, bottom, left] = clip[1].split(/[ ,]+/).map(parseFloat);
        if (!(right - left >= 2 && bottom - top >= 2)) box = { left: 0, top: 0, right: 0, bottom: 0 };
      }
      let background = above.background;
      const colour = rgba(style.backgroundColor);
      if (style.backgroundImage !== 'none') background = null;
      else if (colour && colour[3] > 0.5) background = colour.slice(0, 3);
      facts.set(e, { opacity, box, background, hidden: above.hidden || !seen(e) });
    }
    return facts.get(element);
  };
  const textSeen = (node, parent) => {
    const f = factsOf(parent);
    if (f.hidden || f.opacity < 0.1) return false;
    const style = getComputedStyle(parent);
    if (parseFloat(style.fontSize) < 4) return false;
    const colour = rgba(style.color);
    if (colour && colour[3] < 0.1) return false;
    if (colour && f.background) {
      const distance = Math.abs(colour[0] - f.background[0]) + Math.abs(colour[1] - f.background[1])
        + Math.abs(colour[2] - f.background[2]);
      if (distance < 24) return false;
    }
    const range = document.createRange();
    range.selectNodeContents(node);
    const boxes = [];
    for (const rect of range.getClientRects()) {
      const part = intersect(inDocument(rect), f.box);
      if (part.right - part.left >= 2 && part.bottom - part.top >= 2) boxes.push(part);
    }
    return boxes.length > 0 ? boxes : false;
  };

  const text = newGrid();
  let domText = 0;
  const unseen = [];
  if (body) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // Script and style source is never text a reader could see: not content.
      if (!parent || parent.closest('script, style, noscript, template')) continue;
      const length = nonSpaceLength(node.data);
      if (length === 0) continue;
      domText += length;
      const boxes = textSeen(node, parent);
      if (!boxes) {
        unseen.push(node);
        continue;
      }
      for (const box of boxes) paint(text, { left: box.left - scrollX, top: box.top - scrollY,
        right: box.right - scrollX, bottom: box.bottom - scrollY });
    }
  }

  // Unseen text is blanked so that innerText (which honours display and visibility
  // only) is what a reader sees.
  for (const node of unseen) node.data = '';
  const innerText = body ? body.innerText : '';
  const visibleLength = nonSpaceLength(innerText);
  const hidden = domText > 0 ? Math.min(1, Math.max(0, 1 - visibleLength / domText)) : 0;

  return JSON.stringify({
    synthetic_body: synthetic,
    visible_text: kept(innerText),
    image_count: document.getElementsByTagName('img').length,
    image_area: share(images),
    text_area: share(text),
    hidden_text_share: hidden,
  });
})()
