// <newsletter-signup>: a newsletter widget rendered into an open shadow root.
// Its markup comes from the page's <template id="newsletter-signup-template">.
class NewsletterSignup extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: "open" });
    root.append(document.getElementById("newsletter-signup-template").content.cloneNode(true));
    const form = root.querySelector("#newsletter-form");
    const email = root.querySelector("#newsletter-email");
    const status = root.querySelector("#newsletter-status");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = email.value.trim();
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) {
        email.setAttribute("aria-invalid", "true");
        status.className = "newsletter-status is-error";
        status.textContent = "Please enter a valid email address.";
        return;
      }
      email.removeAttribute("aria-invalid");
      form.hidden = true;
      status.className = "newsletter-status is-done";
      status.textContent = `Thanks for subscribing! We sent a confirmation link to ${value}.`;
    });
  }
}
customElements.define("newsletter-signup", NewsletterSignup);
