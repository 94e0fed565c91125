// Elements by role and accessible name, through open shadow roots, the way tests in
// Chromium find them with Playwright's get_by_role: visible elements only, the name
// matched as a case-insensitive substring of the whitespace-collapsed name, or
// exactly. Only the roles and naming rules the panel's markup uses (contract §3).
(role, name, exact) => {
  const IMPLICIT = {
    A: (e) => (e.hasAttribute("href") ? "link" : ""),
    ARTICLE: () => "article",
    BUTTON: () => "button",
    H1: () => "heading", H2: () => "heading", H3: () => "heading", H4: () => "heading",
    INPUT: (e) => ({ checkbox: "checkbox", radio: "radio", button: "button", submit: "button", search: "searchbox" })[e.type] || "textbox",
    LI: () => "listitem",
    OL: () => "list",
    SECTION: (e) => (e.hasAttribute("aria-label") ? "region" : ""),
    SELECT: () => "combobox",
    TEXTAREA: () => "textbox",
    UL: () => "list",
  };
  const NAMED_BY_CONTENT = new Set(["button", "link", "heading", "listitem", "checkbox", "switch"]);
  const collapse = (text) => (text || "").replace(/\s+/g, " ").trim();
  const roleOf = (e) => e.getAttribute("role") || (IMPLICIT[e.tagName] || (() => ""))(e);
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const nameOf = (e) => {
    const ids = e.getAttribute("aria-labelledby");
    if (ids) {
      const root = e.getRootNode();
      return collapse(ids.split(/\s+/).map((id) => root.getElementById(id)?.textContent).join(" "));
    }
    if (e.hasAttribute("aria-label")) return collapse(e.getAttribute("aria-label"));
    if (e.labels && e.labels.length) return collapse([...e.labels].map((l) => l.textContent).join(" "));
    if (NAMED_BY_CONTENT.has(roleOf(e))) return collapse(e.innerText ?? e.textContent);
    return collapse(e.getAttribute("title"));
  };
  const all = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll("*")) {
      all.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  const wanted = (found) =>
    name == null || (exact ? found === name : found.toLowerCase().includes(name.toLowerCase()));
  return all.filter((e) => roleOf(e) === role && shown(e) && wanted(nameOf(e)));
}
