// The reference of bench/login.mjs: a minimal single-page app doing the panel's steps (a sign-in form
// made by script, POST /api/login, GET /api/server/status, then the controls), with no framework.
const root = document.getElementById("root");
function controls(status) {
  root.innerHTML =
    `<h1>Controls</h1><form aria-label="Start Server"><p>${status.status}</p><button>Start Server</button></form>`;
}
root.innerHTML =
  `<form aria-label="Sign in"><h1>Factorio Panel</h1><label>Username <input name="username"></label>
<label>Password <input name="password" type="password"></label><button>Sign In</button></form>`;
root.querySelector("form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const data = new FormData(e.target);
  await fetch("/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(Object.fromEntries(data)),
  });
  controls(await (await fetch("/api/server/status")).json());
});
