// Shared by the replay pages: remembers every click (so tests can prove which button was
// pressed) and signs in without ever showing the password.
window.__clicks = [];
document.addEventListener("click", (event) => {
  const target = event.target.closest("button, a, input");
  if (target) window.__clicks.push((target.textContent || target.value || "").trim());
}, true);
const form = document.querySelector("form");
if (form) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const user = form.querySelector("input[name=user]").value;
    const password = form.querySelector("input[name=pass]").value;
    const status = document.querySelector("[role=status]");
    status.textContent = user && password.length >= 8
      ? `Welcome back, ${user}`
      : "Username and password are required";
  });
}
for (const button of document.querySelectorAll("button[data-danger]")) {
  button.addEventListener("click", () => {
    document.querySelector("[role=status]").textContent = "Account deleted";
  });
}
