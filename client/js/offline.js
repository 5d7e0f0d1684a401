// The offline page (offline.html): a file of its own, as the Content-Security-Policy
// allows no inline script.
document.getElementById("retry").addEventListener("click", () => window.location.reload());
window.addEventListener("online", () => window.location.reload());
