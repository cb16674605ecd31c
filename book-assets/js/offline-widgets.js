/*
 * Glue between the book's pages and the vendored ipywidgets HTML manager (embed-amd.js).
 * Loaded after require.js and before embed-amd.js on pages with saved widget state.
 *
 * 1. embed-amd.js finds its icon fonts relative to the URL that require.js gives its module
 *    "@jupyter-widgets/html-manager/dist/libembed-amd"; by default that is a path next to the
 *    page. Map it to the folder the manager was copied to, so the fonts load from the book.
 * 2. The manager typesets widget labels with the MathJax 2 call MathJax.Hub.Queue; the book
 *    uses MathJax 3, which has no Hub. Provide that one call on top of MathJax 3.
 */
(function () {
  "use strict";
  var here = document.currentScript && document.currentScript.src;
  if (here && window.require && window.require.config) {
    var manager = new URL("offline-js/html-manager", here).href;
    window.require.config({ paths: { "@jupyter-widgets/html-manager/dist": manager } });
  }
  function mathjax2Queue() {
    var mj = window.MathJax;
    if (mj && mj.typesetPromise && !mj.Hub) {
      mj.Hub = {
        Queue: function (job) {
          var node = job && job[2];
          if (node) {
            mj.typesetPromise([node]).catch(function (err) {
              console.warn("MathJax could not typeset a widget label", err);
            });
          }
        },
      };
    }
  }
  document.addEventListener("DOMContentLoaded", mathjax2Queue);
  window.addEventListener("load", mathjax2Queue);
})();
