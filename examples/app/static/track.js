// Two things that take their time, as on many real shops:
// - the Help menu builds its submenu 0.36 s after the pointer rests on it;
// - tracking an order asks the carrier, and the answer comes 1.5 s later.
const ANSWERS = {
  "Delivery times": "Standard delivery takes 3–5 business days, express 1–2.",
  "Returns": "Unused items can be returned within 30 days.",
};
const menu = document.getElementById("help-menu");
let opening = null;
menu.addEventListener("mouseenter", () => {
  opening = setTimeout(() => {
    if (menu.querySelector(".help-menu__list")) return;
    const list = document.createElement("ul");
    list.className = "help-menu__list";
    for (const [topic, answer] of Object.entries(ANSWERS)) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = "#" + topic.toLowerCase().replace(" ", "-");
      link.textContent = topic;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        document.getElementById("help-answer").textContent = answer;
      });
      item.append(link);
      list.append(item);
    }
    menu.append(list);
  }, 360);
});
menu.addEventListener("mouseleave", () => {
  clearTimeout(opening);
  menu.querySelector(".help-menu__list")?.remove();
});

document.getElementById("track-order").addEventListener("click", (event) => {
  event.target.hidden = true;
  document.getElementById("tracking-progress").hidden = false;
  setTimeout(() => {
    document.getElementById("tracking-progress").hidden = true;
    const status = document.createElement("p");
    status.setAttribute("role", "status");
    status.textContent = "Order #1001 has shipped and arrives on Friday.";
    document.getElementById("tracking-result").append(status);
  }, 1500);
});
