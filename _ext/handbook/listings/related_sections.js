/* Related sections (_ext/handbook/listings/related_sections.py): a block's
   list, written when a reader opens the block.

   The page's entries are in a file of their own (this script's tag says
   where: data-tables), loaded with the first block opened; it sets
   window.handbookRelatedSections to {targets: [[href or null, text], …],
   names: […], blocks: {section id: "target,count,name,name… …"}}, the
   targets and names given by their numbers.  The tag also holds the texts:
   data-shared ("{count} 个共同的卡名：{names}"), data-separator and
   data-more.  Elements are made with textContent and setAttribute: no text
   becomes HTML. */
(() => {
  'use strict';
  const texts = document.currentScript.dataset;
  let loading = null;

  // the page's entries: a script (not a fetch: a page read from disk loads it too)
  function tables() {
    if (loading === null) {
      loading = new Promise((resolve, reject) => {
        const script = document.createElement('script');
        script.src = texts.tables;
        script.onload = () => resolve(window.handbookRelatedSections);
        script.onerror = () => {
          loading = null;  // tried again at the next opening
          script.remove();
          reject(new Error(`related sections: ${texts.tables} not loaded`));
        };
        document.head.append(script);
      });
    }
    return loading;
  }

  function item({targets, names}, entry) {
    const [target, count, ...shown] = entry.split(',').map(Number);
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

  const filled = new WeakSet();

  function fill(block) {
    if (filled.has(block)) return;
    filled.add(block);
    tables().then((data) => {
      const id = block.parentElement.id;  // its section's
      const entries = Object.hasOwn(data.blocks, id) ? data.blocks[id] : '';
      if (!entries) return;
      const list = document.createElement('ul');
      list.className = 'simple';
      list.append(...entries.split(' ').map((entry) => item(data, entry)));
      block.append(list);
    }, (error) => {
      filled.delete(block);
      console.error(error);
    });
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
