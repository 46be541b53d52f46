// Trailhead Outfitters: the example shop's behaviour. No framework, no build step.
// State lives in browser storage, so each fresh browser context starts with an empty shop.
(() => {
  "use strict";

  const PRODUCTS = window.SHOP_PRODUCTS;
  const PASSWORD = "secret_sauce";
  const BUILT_IN_USERS = ["standard_user", "locked_out_user"];
  const LOCKED_OUT = new Set(["locked_out_user"]);
  const TAX_RATE = 0.08;
  const SHIPPING = {
    standard: { label: "Standard delivery", price: 499 },
    express: { label: "Express delivery", price: 1499 },
    pickup: { label: "Store pickup", price: 0 },
  };
  const PAYMENT = { card: "Credit card", paypal: "PayPal", invoice: "Invoice" };
  const CATEGORY = { bags: "Bags", clothing: "Clothing", accessories: "Accessories" };
  const NEEDS_LOGIN = new Set(["inventory", "product", "cart", "checkout", "overview", "complete"]);

  // ---- storage -------------------------------------------------------------------------
  const read = (storage, key, fallback) => {
    const raw = storage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  };
  const write = (storage, key, value) => storage.setItem(key, JSON.stringify(value));

  const session = {
    user: () => read(sessionStorage, "shop.session", null) || read(localStorage, "shop.session", null),
    start(user, remember) {
      write(remember ? localStorage : sessionStorage, "shop.session", user);
    },
    end() {
      sessionStorage.removeItem("shop.session");
      localStorage.removeItem("shop.session");
    },
  };

  const cart = {
    items: () => read(localStorage, "shop.cart", {}), // product id -> quantity
    save: (items) => write(localStorage, "shop.cart", items),
    has: (id) => id in cart.items(),
    add(id) {
      const items = cart.items();
      items[id] = (items[id] || 0) + 1;
      cart.save(items);
    },
    setQuantity(id, quantity) {
      const items = cart.items();
      items[id] = quantity;
      cart.save(items);
    },
    remove(id) {
      const items = cart.items();
      delete items[id];
      cart.save(items);
    },
    count: () => Object.values(cart.items()).reduce((sum, n) => sum + n, 0),
    lines: () => Object.entries(cart.items()).map(([id, quantity]) => ({ product: byId(id), quantity }))
      .filter((line) => line.product),
    total: () => cart.lines().reduce((sum, line) => sum + line.product.price * line.quantity, 0),
  };

  // ---- helpers -------------------------------------------------------------------------
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
  const byId = (id) => PRODUCTS.find((product) => product.id === id);
  const money = (cents) => `$${(cents / 100).toFixed(2)}`;
  const go = (path) => window.location.assign(path);
  const fromTemplate = (id) => document.getElementById(id).content.firstElementChild.cloneNode(true);

  function showErrors(box, messages) {
    box.replaceChildren();
    if (messages.length === 1) {
      box.textContent = messages[0];
    } else {
      const list = document.createElement("ul");
      for (const message of messages) {
        const item = document.createElement("li");
        item.textContent = message;
        list.append(item);
      }
      box.append(list);
    }
    box.hidden = messages.length === 0;
  }

  function markInvalid(input, invalid) {
    if (invalid) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }

  function updateCartCount() {
    const badge = $("#cart-count");
    const count = cart.count();
    badge.textContent = String(count);
    badge.hidden = count === 0;
  }

  // A button that toggles a product in and out of the cart.
  function bindCartToggle(button, product) {
    const nameId = `name-${product.id}`;
    const render = () => {
      const inCart = cart.has(product.id);
      button.textContent = inCart ? "Remove" : "Add to cart";
      button.dataset.test = `${inCart ? "remove" : "add-to-cart"}-${product.id}`;
      button.classList.toggle("btn-secondary", inCart);
      button.classList.toggle("btn-primary", !inCart);
    };
    button.setAttribute("aria-describedby", nameId);
    button.addEventListener("click", () => {
      if (cart.has(product.id)) cart.remove(product.id);
      else cart.add(product.id);
      render();
      updateCartCount();
    });
    render();
  }

  // ---- header --------------------------------------------------------------------------
  function renderHeader() {
    const user = session.user();
    for (const el of $$("[data-session-only]")) el.hidden = !user;
    for (const el of $$("[data-guest-only]")) el.hidden = Boolean(user);
    for (const link of $$("[data-guest-only] a")) link.hidden = link.pathname === window.location.pathname;
    for (const link of $$("nav a")) {
      if (link.pathname === window.location.pathname) link.setAttribute("aria-current", "page");
    }
    if (user) {
      $("#account-name").textContent = `Signed in as ${user.name}`;
      $("#logout-button").addEventListener("click", () => {
        session.end();
        go("/");
      });
      updateCartCount();
    }
  }

  // ---- pages ---------------------------------------------------------------------------
  function loginPage() {
    const form = $("#login-form");
    const error = $("#login-error");
    const username = $("#user-name");
    const password = $("#login-password");
    const params = new URLSearchParams(window.location.search);
    if (params.has("next")) showErrors(error, ["Please log in to view that page."]);
    const remembered = localStorage.getItem("shop.lastUser");
    if (remembered) {
      username.value = remembered;
      $("#remember-me").checked = true;
    }

    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = username.value.trim();
      const users = read(localStorage, "shop.users", {});
      const known = users[name] ? users[name].password === password.value
        : BUILT_IN_USERS.includes(name) && password.value === PASSWORD;
      let message = "";
      if (!name) message = "Username is required";
      else if (!password.value) message = "Password is required";
      else if (!known) message = "Username and password do not match any user in this service";
      else if (LOCKED_OUT.has(name)) message = "Sorry, this user has been locked out.";
      markInvalid(username, message !== "" && message !== "Password is required");
      markInvalid(password, message === "Password is required" || (Boolean(name) && !known));
      if (message) {
        showErrors(error, [message]);
        return;
      }
      const remember = $("#remember-me").checked;
      if (remember) localStorage.setItem("shop.lastUser", name);
      else localStorage.removeItem("shop.lastUser");
      session.start({ username: name, name: users[name] ? users[name].name : name }, remember);
      const next = params.get("next");
      go(next && next.startsWith("/") ? next : "/inventory");
    });
  }

  function inventoryPage() {
    const list = $("#inventory-list");
    const sort = $("#product-sort");
    const search = $("#search-input");
    const categories = $$("#category-filter input");
    const orders = {
      az: (a, b) => a.name.localeCompare(b.name),
      za: (a, b) => b.name.localeCompare(a.name),
      lohi: (a, b) => a.price - b.price,
      hilo: (a, b) => b.price - a.price,
    };

    const cards = new Map(PRODUCTS.map((product) => {
      const card = fromTemplate("product-card-template");
      const link = $(".product-name a", card);
      link.textContent = product.name;
      link.href = `/products/${product.id}`;
      link.id = `name-${product.id}`;
      $(".product-card", card).setAttribute("aria-labelledby", link.id);
      const image = $(".product-image", card);
      image.src = `/static/img/${product.id}.svg`;
      image.alt = product.name;
      $(".product-desc", card).textContent = product.description;
      $(".product-price", card).textContent = money(product.price);
      bindCartToggle($(".cart-toggle", card), product);
      return [product.id, card];
    }));

    function render() {
      const query = search.value.trim().toLowerCase();
      const wanted = categories.filter((box) => box.checked).map((box) => box.value);
      const shown = PRODUCTS
        .filter((p) => wanted.length === 0 || wanted.includes(p.category))
        .filter((p) => !query || `${p.name} ${p.description}`.toLowerCase().includes(query))
        .sort(orders[sort.value]);
      list.replaceChildren(...shown.map((product) => cards.get(product.id)));
      $("#result-count").textContent = `Showing ${shown.length} of ${PRODUCTS.length} products`;
      $("#empty-state").hidden = shown.length > 0;
    }

    sort.addEventListener("change", render);
    search.addEventListener("input", render);
    for (const box of categories) box.addEventListener("change", render);
    render();

    const welcome = sessionStorage.getItem("shop.welcome");
    if (welcome) {
      sessionStorage.removeItem("shop.welcome");
      const banner = $("#welcome-banner");
      banner.textContent = `Welcome, ${welcome}! Your account is ready.`;
      banner.hidden = false;
    }
  }

  function productPage() {
    const product = byId(window.location.pathname.split("/").pop());
    if (!product) {
      $("#empty-state").hidden = false;
      return;
    }
    document.title = `${product.name} · Trailhead Outfitters`;
    const detail = $("#product-detail");
    const name = $(".detail-name", detail);
    name.textContent = product.name;
    name.id = `name-${product.id}`;
    const image = $(".detail-image", detail);
    image.src = `/static/img/${product.id}.svg`;
    image.alt = product.name;
    $(".detail-category", detail).textContent = CATEGORY[product.category];
    $(".detail-desc", detail).textContent = `${product.description} ${product.details}`;
    $(".detail-price", detail).textContent = money(product.price);
    bindCartToggle($(".cart-toggle", detail), product);
    detail.hidden = false;
  }

  function cartPage() {
    const list = $("#cart-list");
    const checkout = $("#checkout-button");

    function renderTotals() {
      $("#cart-quantity").textContent = String(cart.count());
      $("#cart-total").textContent = money(cart.total());
      $("#empty-state").hidden = cart.count() > 0;
      checkout.disabled = cart.count() === 0;
      updateCartCount();
    }

    for (const { product, quantity } of cart.lines()) {
      const row = fromTemplate("cart-item-template");
      const image = $(".product-image", row);
      image.src = `/static/img/${product.id}.svg`;
      image.alt = product.name;
      const link = $(".item-name a", row);
      link.textContent = product.name;
      link.href = `/products/${product.id}`;
      link.id = `name-${product.id}`;
      $(".item-price", row).textContent = money(product.price);
      const input = $(".item-qty input", row);
      input.id = `quantity-${product.id}`;
      input.value = String(quantity);
      input.setAttribute("aria-describedby", link.id);
      $(".item-qty label", row).htmlFor = input.id;
      const lineTotal = $(".item-total", row);
      lineTotal.textContent = money(product.price * quantity);
      input.addEventListener("change", () => {
        const value = Math.min(10, Math.max(1, Number.parseInt(input.value, 10) || 1));
        input.value = String(value);
        cart.setQuantity(product.id, value);
        lineTotal.textContent = money(product.price * value);
        renderTotals();
      });
      const remove = $(".remove-item", row);
      remove.dataset.test = `remove-${product.id}`;
      remove.setAttribute("aria-describedby", link.id);
      remove.addEventListener("click", () => {
        cart.remove(product.id);
        row.remove();
        renderTotals();
      });
      list.append(row);
    }
    checkout.addEventListener("click", () => go("/checkout"));
    renderTotals();
  }

  // The shipping method picker: a button that opens a listbox (WAI-ARIA "select-only" pattern).
  function shippingDropdown(onChange) {
    const button = $("#shipping-button");
    const listbox = $("#shipping-options");
    const options = $$("[role=option]", listbox);
    let active = 0;

    const setActive = (index) => {
      active = (index + options.length) % options.length;
      options.forEach((option, i) => option.classList.toggle("is-active", i === active));
      listbox.setAttribute("aria-activedescendant", options[active].id);
    };
    const open = () => {
      listbox.hidden = false;
      button.setAttribute("aria-expanded", "true");
      const selected = options.findIndex((o) => o.getAttribute("aria-selected") === "true");
      setActive(Math.max(selected, 0));
      listbox.focus();
    };
    const close = (refocus = true) => {
      listbox.hidden = true;
      button.setAttribute("aria-expanded", "false");
      if (refocus) button.focus();
    };
    const choose = (option) => {
      for (const o of options) o.setAttribute("aria-selected", String(o === option));
      $(".dropdown-value", button).textContent = SHIPPING[option.dataset.value].label;
      close();
      onChange(option.dataset.value);
    };

    button.addEventListener("click", () => (listbox.hidden ? open() : close()));
    button.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        open();
      }
    });
    options.forEach((option, i) => {
      option.addEventListener("click", () => choose(option));
      option.addEventListener("mousemove", () => setActive(i));
    });
    listbox.addEventListener("keydown", (event) => {
      const keys = {
        ArrowDown: () => setActive(active + 1),
        ArrowUp: () => setActive(active - 1),
        Home: () => setActive(0),
        End: () => setActive(options.length - 1),
        Enter: () => choose(options[active]),
        " ": () => choose(options[active]),
        Escape: () => close(),
        Tab: () => close(false),
      };
      if (keys[event.key]) {
        if (event.key !== "Tab") event.preventDefault();
        keys[event.key]();
      }
    });
    document.addEventListener("click", (event) => {
      if (!listbox.hidden && !$("#shipping-dropdown").contains(event.target)) close(false);
    });
    return {
      set(value) {
        const option = options.find((o) => o.dataset.value === value);
        if (option) {
          for (const o of options) o.setAttribute("aria-selected", String(o === option));
          $(".dropdown-value", button).textContent = SHIPPING[value].label;
        }
      },
    };
  }

  function checkoutPage() {
    if (cart.count() === 0) {
      go("/cart");
      return;
    }
    const form = $("#checkout-form");
    const saved = read(sessionStorage, "shop.checkout", {});
    let shipping = saved.shipping || "";
    const dropdown = shippingDropdown((value) => {
      shipping = value;
      $("#shipping-button").removeAttribute("aria-invalid");
    });
    const fields = { firstName: $("#first-name"), lastName: $("#last-name"), postalCode: $("#postcode") };
    // A draft restored never clears what was typed while this script was on its way.
    for (const [key, input] of Object.entries(fields)) if (saved[key]) input.value = saved[key];
    dropdown.set(shipping);
    if (saved.payment) form.elements.payment.value = saved.payment;

    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const values = Object.fromEntries(Object.entries(fields).map(([k, input]) => [k, input.value.trim()]));
      const payment = form.elements.payment.value;
      const errors = [];
      const required = { firstName: "First name", lastName: "Last name", postalCode: "Postal code" };
      for (const [key, label] of Object.entries(required)) {
        markInvalid(fields[key], !values[key]);
        if (!values[key]) errors.push(`${label} is required`);
      }
      markInvalid($("#shipping-button"), !shipping);
      if (!shipping) errors.push("Please choose a shipping method");
      if (!payment) errors.push("Please choose a payment method");
      showErrors($("#checkout-error"), errors);
      if (errors.length) return;
      write(sessionStorage, "shop.checkout", { ...values, shipping, payment });
      go("/checkout/overview");
    });
  }

  function orderTotals(shipping) {
    const items = cart.total();
    const tax = Math.round(items * TAX_RATE);
    const delivery = SHIPPING[shipping].price;
    return { items, tax, delivery, total: items + tax + delivery };
  }

  function overviewPage() {
    const info = read(sessionStorage, "shop.checkout", null);
    if (cart.count() === 0 || !info) {
      go(cart.count() === 0 ? "/cart" : "/checkout");
      return;
    }
    const list = $("#summary-list");
    for (const { product, quantity } of cart.lines()) {
      const row = fromTemplate("summary-item-template");
      const image = $(".product-image", row);
      image.src = `/static/img/${product.id}.svg`;
      image.alt = product.name;
      $(".item-name", row).textContent = product.name;
      $(".item-price", row).textContent = money(product.price);
      $(".item-qty", row).textContent = `Quantity: ${quantity}`;
      $(".item-total", row).textContent = money(product.price * quantity);
      list.append(row);
    }
    const totals = orderTotals(info.shipping);
    $("#summary-recipient").textContent = `${info.firstName} ${info.lastName}, ${info.postalCode}`;
    $("#summary-method").textContent = SHIPPING[info.shipping].label;
    $("#summary-payment").textContent = PAYMENT[info.payment];
    $(".summary-subtotal").textContent = money(totals.items);
    $(".summary-shipping").textContent = totals.delivery ? money(totals.delivery) : "Free";
    $(".summary-tax").textContent = money(totals.tax);
    $(".summary-total").textContent = money(totals.total);

    $("#finish-button").addEventListener("click", () => {
      // Order numbers count up per browser profile: the first order is always TO-10001.
      const orders = read(localStorage, "shop.orders", []);
      const number = `TO-${10001 + orders.length}`;
      orders.push({ number, items: cart.items(), ...info, total: totals.total });
      write(localStorage, "shop.orders", orders);
      cart.save({});
      sessionStorage.removeItem("shop.checkout");
      go("/checkout/complete");
    });
  }

  function completePage() {
    const orders = read(localStorage, "shop.orders", []);
    if (orders.length === 0) {
      go("/inventory");
      return;
    }
    $("#order-number").textContent = orders[orders.length - 1].number;
  }

  function signupPage() {
    const form = $("#signup-form");
    const field = (name) => form.elements[name];
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = field("name").value.trim();
      const email = field("email").value.trim();
      const password = field("password").value;
      const users = read(localStorage, "shop.users", {});
      const checks = [
        [field("name"), !name, "Full name is required"],
        [field("email"), !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email), "Enter a valid email address"],
        [field("email"), email in users, "An account with this email already exists"],
        [field("password"), password.length < 8, "Password must be at least 8 characters"],
        [field("confirm"), field("confirm").value !== password, "Passwords do not match"],
        [field("terms"), !field("terms").checked, "You must accept the terms and conditions"],
      ];
      for (const input of form.elements) markInvalid(input, false);
      const failed = checks.filter(([, bad]) => bad);
      for (const [input] of failed) markInvalid(input, true);
      showErrors($("#signup-errors"), failed.map(([, , message]) => message));
      if (failed.length) return;
      users[email] = { name, password };
      write(localStorage, "shop.users", users);
      session.start({ username: email, name }, false);
      sessionStorage.setItem("shop.welcome", name);
      go("/inventory");
    });
  }

  // ---- start ---------------------------------------------------------------------------
  const page = document.body.dataset.page;
  if (NEEDS_LOGIN.has(page) && !session.user()) {
    window.location.replace(`/?next=${encodeURIComponent(window.location.pathname)}`);
    return;
  }
  renderHeader();
  const pages = {
    login: loginPage,
    inventory: inventoryPage,
    product: productPage,
    cart: cartPage,
    checkout: checkoutPage,
    overview: overviewPage,
    complete: completePage,
    signup: signupPage,
  };
  if (pages[page]) pages[page]();
})();
