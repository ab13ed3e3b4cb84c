/* Related sections (_ext/handbook/listings/related_sections.py): a block's
   list, written when a reader opens the block.

   Each <details class="related-sections" data-related="…"> says its entries
   (space-separated; each "target,count,name,name…" in numbers); the page's
   <script type="application/json" id="related-sections-data"> holds the
   tables they number: targets ([href or null, text]) and card names.  This
   script's tag holds the texts: data-shared ("{count} 个共同的卡名：{names}"),
   data-separator and data-more.  Elements are made with textContent and
   setAttribute: no text becomes HTML. */
(() => {
  'use strict';
  const texts = document.currentScript.dataset;
  let tables = null;

  function data() {
    if (tables === null) {
      const script = document.getElementById('related-sections-data');
      tables = script ? JSON.parse(script.textContent) : {targets: [], names: []};
    }
    return tables;
  }

  function item(entry) {
    const [target, count, ...shown] = entry.split(',').map(Number);
    const {targets, names} = data();
    const [href, text] = targets[target];
    const li = document.createElement('li');
    if (href === null) {
      li.append(text);
    } else {
      const link = document.createElement('a');
      link.className = 'reference internal';
      link.setAttribute('href', href);
      link.textContent = text;
      li.append(link);
    }
    let listed = shown.map((i) => names[i]).join(texts.separator);
    if (count > shown.length) listed += texts.more;
    const cards = document.createElement('span');
    cards.className = 'related-cards';
    // a function, not a string, replaces: no "$&" of a name is a pattern
    cards.textContent = texts.shared.replace('{count}', () => String(count))
      .replace('{names}', () => listed);
    li.append(' · ', cards);
    return li;
  }

  function fill(block) {
    const entries = block.dataset.related;
    if (!entries || block.querySelector('ul')) return;
    const list = document.createElement('ul');
    list.className = 'simple';
    list.append(...entries.split(' ').map(item));
    block.append(list);
  }

  const BLOCK = 'details.related-sections';
  // before the block opens (a click on its summary, by pointer or keyboard),
  // and whenever it opens otherwise
  document.addEventListener('click', (event) => {
    const summary = event.target.closest && event.target.closest(`${BLOCK} > summary`);
    if (summary) fill(summary.parentElement);
  }, true);
  document.addEventListener('toggle', (event) => {
    if (event.target.matches && event.target.matches(BLOCK) && event.target.open) {
      fill(event.target);
    }
  }, true);
  document.querySelectorAll(`${BLOCK}[open]`).forEach(fill);
})();
