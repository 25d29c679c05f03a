// MathJax 2 (served from the site itself, assets/mathjax): pymdownx.arithmatex's generic
// output wraps formulas in \( \) and \[ \] inside span/div.arithmatex.
window.MathJax = {
  tex2jax: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true},
  "HTML-CSS": {availableFonts: ["TeX"], imageFont: null},
  messageStyle: "none",
};
