/* Lakeside Courier app shell: renders the article into #root.
   Written for twinpage test fixtures, public domain (CC0). No network access. */
(function () {
  "use strict";
  var story = {
    title: "Old rail bridge to close for six weeks of repairs",
    byline: "By Lina Ek, Transport Reporter. Published 3 May 2024.",
    paragraphs: [
      "The old rail bridge over the Stone River will close to trains and walkers for six weeks from the tenth of June while workers replace corroded steel beams and repaint the whole structure.",
      "Inspectors found rust holes in four of the cross beams during the spring survey. The railway company says the bridge is still safe for slow trains, but the damage would spread quickly if the repairs waited another winter. Until the work is finished, passengers between Millbrook and the harbour will travel by replacement bus, which adds about twenty minutes to the journey.",
      "The footpath that runs along the eastern side of the bridge will also close, because the painters need the whole deck for their scaffolding. Walkers and cyclists are asked to use the road bridge two kilometres upstream.",
      "Project manager Karin Vik said the crews will work in two shifts and avoid noisy grinding at night. The bridge, opened in 1911, last had a full repair in the nineteen eighties. Local historians hope the new paint will match the original dark green colour seen in old photographs. Times for the replacement buses are printed at every station along the line."
    ]
  };
  var root = document.getElementById("root");
  var article = document.createElement("article");
  var h1 = document.createElement("h1");
  h1.textContent = story.title;
  article.appendChild(h1);
  var by = document.createElement("p");
  by.className = "byline";
  by.textContent = story.byline;
  article.appendChild(by);
  for (var i = 0; i < story.paragraphs.length; i++) {
    var p = document.createElement("p");
    p.textContent = story.paragraphs[i];
    article.appendChild(p);
  }
  root.innerHTML = "";
  root.appendChild(article);
  document.title = story.title + " | Lakeside Courier";
})();
