// The contact form shown in the support page's iframe (served from a second origin).
(() => {
  "use strict";
  const form = document.getElementById("contact-form");
  const error = document.getElementById("contact-error");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = form.elements.name.value.trim();
    const email = form.elements.email.value.trim();
    const message = form.elements.message.value.trim();
    const problems = [
      [form.elements.name, !name, "Please tell us your name."],
      [form.elements.email, !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email), "Please enter a valid email address."],
      [form.elements.message, !message, "Please write a message."],
    ];
    for (const [input, bad] of problems) {
      if (bad) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    const first = problems.find(([, bad]) => bad);
    error.textContent = first ? first[2] : "";
    error.hidden = !first;
    if (first) return;
    form.hidden = true;
    document.getElementById("contact-sent-text").textContent =
      `Thanks, ${name}! We will reply to ${email} within one business day.`;
    document.getElementById("contact-sent").hidden = false;
  });
})();
