// Sphinx's search page fetches each result's page to cut the matching passage from it; a
// browser refuses such fetches for a book opened from file://. The pages' section texts are
// above (BOOK_SEARCH_TEXTS, by document name): the page's fetches are answered from them, so
// the summary shows from a local folder and from a server alike.
(() => {
  const texts = window.BOOK_SEARCH_TEXTS || {};
  const fetchPage = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    const root = document.documentElement.dataset.content_root || "";
    const suffix = (window.DOCUMENTATION_OPTIONS || {}).FILE_SUFFIX || ".html";
    if (url.startsWith(root) && url.endsWith(suffix)) {
      const name = url.slice(root.length, url.length - suffix.length);
      if (Object.prototype.hasOwnProperty.call(texts, name)) {
        return Promise.resolve(
          new Response(texts[name], { headers: { "Content-Type": "text/html" } }));
      }
    }
    return fetchPage(input, init);
  };
})();
