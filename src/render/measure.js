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

  const text = newGrid();
  let domText = 0;
  if (body) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const visibleParents = new Map();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // Script and style source is never text a reader could see: not content.
      if (!parent || parent.closest('script, style, noscript, template')) continue;
      const length = nonSpaceLength(node.data);
      if (length === 0) continue;
      domText += length;
      if (!visibleParents.has(parent)) visibleParents.set(parent, seen(parent));
      if (!visibleParents.get(parent)) continue;
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) paint(text, rect);
    }
  }

  const visibleText = body ? body.innerText : '';
  const visibleLength = nonSpaceLength(visibleText);
  const hidden = domText > 0 ? Math.min(1, Math.max(0, 1 - visibleLength / domText)) : 0;

  return JSON.stringify({
    synthetic_body: root ? doctypeOf(document.doctype) + root.outerHTML : '',
    visible_text: visibleText,
    image_count: document.getElementsByTagName('img').length,
    image_area: share(images),
    text_area: share(text),
    hidden_text_share: hidden,
  });
})()
