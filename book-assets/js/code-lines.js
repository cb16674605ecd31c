// Wrapped code keeps Python's indentation visible: each line of a code block becomes its own
// box (book-assets/css/book.css, .book-code-line) whose continuation lines hang under the
// line's own indentation plus four columns, instead of restarting at column 0. The text is
// unchanged (the newlines stay between the boxes), so copying a cell copies the same code.
(() => {
  const strip = (html) => html.replace(/<[^>]*>/g, "");
  const wrapLines = (pre) => {
    if (pre.dataset.bookLines) return;
    pre.dataset.bookLines = "1";
    const lines = pre.innerHTML.split("\n");
    // each line must open and close its own spans (Pygments closes them at each newline)
    const balanced = lines.every(
      (l) => (l.match(/<span\b/g) || []).length === (l.match(/<\/span>/g) || []).length);
    if (!balanced) return;
    pre.innerHTML = lines.map((line, i) => {
      if (i === lines.length - 1 && line === "") return "";
      const indent = strip(line).match(/^ */)[0].length;
      return `<span class="book-code-line" style="--indent: ${indent}">${line}</span>`;
    }).join("\n");
  };
  const run = () => document.querySelectorAll(
    "div.highlight pre, div.cell_output pre").forEach(wrapLines);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
