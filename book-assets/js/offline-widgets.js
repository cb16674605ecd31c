/*
 * Glue between the book's pages and the vendored ipywidgets HTML manager (embed-amd.js).
 * Loaded after require.js and before embed-amd.js on pages with saved widget state.
 *
 * 1. embed-amd.js finds its icon fonts relative to the URL that require.js gives its module
 *    "@jupyter-widgets/html-manager/dist/libembed-amd"; by default that is a path next to the
 *    page. Map it to the folder the manager was copied to, so the fonts load from the book.
 * 2. The manager typesets widget labels with the MathJax 2 call MathJax.Hub.Queue; the book
 *    uses MathJax 3, which has no Hub. Provide that one call on top of MathJax 3.
 * 3. No kernel runs in the HTML book, so an explorer is a saved picture of one setting: a
 *    slider that could still be dragged would change its readout but nothing else. Every
 *    control the manager renders (inside a .widget-subarea) is therefore disabled, and a note
 *    above the explorer says that it runs live in JupyterLab. Each slider also gets its
 *    description as its accessible name (the manager leaves the slider handle unnamed).
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

  // --- 3. saved explorers: controls disabled, sliders named, a note ------------------------
  var CONTROLS = "input, select, textarea, button, .noUi-target, [contenteditable]";
  var NOTE =
    "A saved view of this explorer: no Python runs in the book, so its controls are " +
    "switched off. Open the chapter in JupyterLab (make lab) to move them; the static " +
    "version next to it shows other settings.";

  function setAttr(el, name, value) {
    if (el.getAttribute(name) !== value) el.setAttribute(name, value);
  }

  function widgetLabel(el) {
    var box = el.closest(".widget-slider, .widget-inline-hbox, .widget-inline-vbox");
    var label = box && box.querySelector(".widget-label");
    var text = label && label.textContent.trim();
    return text || null;
  }

  function freeze(subarea) {
    var controls = subarea.querySelectorAll(CONTROLS);
    if (!controls.length) return;
    controls.forEach(function (el) {
      if ("disabled" in el && el.matches("input, select, textarea, button")) {
        if (!el.disabled) el.disabled = true;
      } else if (el.classList.contains("noUi-target")) {
        setAttr(el, "disabled", "true");
      } else if (el.hasAttribute("contenteditable")) {
        setAttr(el, "contenteditable", "false");
      }
    });
    subarea.querySelectorAll('[role="slider"]').forEach(function (handle) {
      setAttr(handle, "aria-disabled", "true");
      setAttr(handle, "tabindex", "-1");
      var name = widgetLabel(handle);
      if (name && !handle.getAttribute("aria-label")) handle.setAttribute("aria-label", name);
    });
    if (!subarea.classList.contains("book-frozen")) {
      subarea.classList.add("book-frozen");
      var note = document.createElement("p");
      note.className = "book-explorer-note";
      note.setAttribute("role", "note");
      note.textContent = NOTE;
      subarea.parentElement.insertBefore(note, subarea);
    }
  }

  var observer = new MutationObserver(function (records) {
    var seen = new Set();
    records.forEach(function (record) {
      var node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      var subarea = node && node.closest(".widget-subarea");
      if (!subarea && record.addedNodes) {
        record.addedNodes.forEach(function (added) {
          if (added.nodeType === 1 && added.classList.contains("widget-subarea")) {
            seen.add(added);
          }
        });
      }
      if (subarea) seen.add(subarea);
    });
    seen.forEach(freeze);
  });
  observer.observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["disabled", "contenteditable", "tabindex", "aria-disabled"],
  });
})();
