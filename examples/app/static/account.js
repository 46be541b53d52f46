// The account page: native dialogs (confirm, prompt) and a photo chosen through a hidden
// file input behind a button.
(() => {
  const status = document.getElementById("account-status");
  document.getElementById("delete-addresses").addEventListener("click", () => {
    status.textContent = confirm("Delete both saved addresses?")
      ? "Saved addresses deleted"
      : "Saved addresses kept";
  });
  document.getElementById("rename-wishlist").addEventListener("click", () => {
    const name = prompt("New name for the wishlist:", "My wishlist");
    if (name === null) {
      status.textContent = "Wishlist not renamed";
      return;
    }
    document.getElementById("wishlist-name").textContent = name;
    status.textContent = "Wishlist renamed";
  });
  const input = document.getElementById("photo-input");
  document.getElementById("choose-photo").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    document.getElementById("photo-status").textContent = `Photo: ${input.files[0].name}`;
  });
})();
