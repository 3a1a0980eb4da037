// The recall's Print button: a script of its own, as the Content-Security-Policy allows
// no inline handler.
document.querySelectorAll("button[data-print]").forEach((button) => {
  button.addEventListener("click", () => window.print());
});
