// docs-panel loader: the one file a page loads up front. It draws the launcher in
// its own Shadow DOM at once and loads the Python runtimes only when the reader
// shows intent (pointer over or focus on the launcher), opens the panel, or this
// tab has a conversation to restore; config `preload` moves that to "idle" (once
// the page has loaded and gone idle) or "none" (the click). build.py fills in
// the manifest of content-hashed files below.
(() => {
  // {files: {name: path}, storage: {pattern, fallback, names}, shortcut: {pattern, fallback},
  //  language: {pattern, fallback}, preload: {values, fallback}, askParam: {pattern, fallback},
  //  session: [id, left, open] (the session record's field names, docs_panel/portable/session_fields.py),
  //  words: {language: [launcher, title, ctrl, ask]}, alerts: [blocked, failed] (English),
  //  rtl: [language], prefetch: [[path]]}
  const M = __DOCS_PANEL_MANIFEST__;
  const w = window, d = document;
  if (w.__docsPanel) return; // pasted twice: one panel is enough
  const base = new URL(".", d.currentScript ? d.currentScript.src : location.href);
  const abs = (p) => new URL(p, base).href;

  // Storage keys, named by the same rule as the worker's config (build.py copies it
  // here): a prefix the config rejects falls back to the default in both places.
  const cfg = w.docsPanel || {};
  // A key's value if it follows the config's rule (build.py copies the rules here),
  // else its default: a value the config rejects falls back in both places.
  const valid = (key, rule = M[key]) => typeof cfg[key] === "string"
    && new RegExp("^(?:" + rule.pattern + ")$").test(cfg[key]) ? cfg[key] : rule.fallback;
  const prefix = valid("storagePrefix", M.storage);
  const keys = Object.fromEntries(M.storage.names.map((name) => [name, prefix + "." + name]));
  const shortcut = cfg.shortcut === null ? null : valid("shortcut");
  const mac = /Mac|iP/.test(navigator.platform || ""); // iPhone, iPad, iPod
  // The reader's language: the configured one, else the page's <html lang>, else the
  // browser's, the first with a table (build.py writes each table's words used here);
  // English otherwise. The shell speaks the one chosen here (bridge.language).
  const primary = (tag) => {
    const p = typeof tag === "string" ? tag.split(/[-_]/)[0].toLowerCase() : "";
    return /^[a-z]{2,3}$/.test(p) ? p : ""; // auto is no language tag
  };
  const configured = valid("language"); // "pt_BR" is refused here as in the config
  const chosen = primary(configured);
  const language = chosen ? (M.words[chosen] ? chosen : "en")
    : [d.documentElement.lang, ...(navigator.languages || [])].map(primary)
      .find((p) => M.words[p]) || "en";
  const [label, title, ctrl, askLabel] = M.words[language];

  let config;
  try {
    config = JSON.stringify(w.docsPanel ?? null);
  } catch (e) {
    config = JSON.stringify("unserializable: " + e.message);
  }
  // A bad value is reported by the worker's config check; until then, the default.
  const preload = M.preload.values.includes(cfg.preload) ? cfg.preload : M.preload.fallback;

  const host = d.createElement("div");
  host.setAttribute("data-docs-panel", "");
  host.lang = language;
  host.dir = M.rtl.includes(language) ? "rtl" : "ltr";
  const root = host.attachShadow({ mode: "open" });
  root.innerHTML = `<style>
:host{all:initial}
.launcher{position:fixed;inset-inline-end:20px;bottom:calc(20px + env(safe-area-inset-bottom));z-index:2147483000;display:flex;align-items:center;gap:8px;
 padding:10px 16px;border:0;border-radius:999px;cursor:pointer;font:600 15px/1.2 system-ui,sans-serif;
 color:var(--docs-panel-on-accent,#fff);background:var(--docs-panel-accent,#2f5bd3);
 box-shadow:0 4px 14px rgba(0,0,0,.25)}
.launcher:hover{filter:brightness(1.08)}
.launcher:focus-visible,.ask:focus-visible{outline:3px solid var(--docs-panel-focus,#174ea6);outline-offset:3px;
 box-shadow:0 0 0 3px #fff}
@media (forced-colors:active){.launcher:focus-visible,.ask:focus-visible{outline-color:Highlight}}
.launcher[aria-busy=true]{cursor:progress;opacity:.85}
.launcher[aria-expanded=true]{display:none}
.launcher svg{width:18px;height:18px}
.blocked{position:fixed;inset-inline-end:20px;bottom:76px;z-index:2147483001;box-sizing:border-box;max-width:min(340px,calc(100vw - 40px));margin:0;padding:12px 14px;
 border-radius:10px;font:14px/1.4 system-ui,sans-serif;color:#5c0b0b;background:#fdecec;border:1px solid #e5a0a0;
 box-shadow:0 4px 14px rgba(0,0,0,.2)}
.ask{position:fixed;z-index:2147483000;padding:5px 10px;border:0;border-radius:6px;cursor:pointer;
 font:600 13px/1.2 system-ui,sans-serif;color:var(--docs-panel-on-accent,#fff);
 background:var(--docs-panel-accent,#2f5bd3);box-shadow:0 2px 8px rgba(0,0,0,.3)}
.ask[hidden]{display:none}
</style><button class="launcher" type="button" aria-expanded="false"><svg viewBox="0 0 24 24" aria-hidden="true"
fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8
8 0 1 1 21 12z"/></svg></button><button class="ask" type="button" hidden></button>`;
  const [launcher, ask] = root.querySelectorAll("button");
  launcher.append(label);
  ask.append(askLabel);
  if (shortcut) {
    launcher.title = title.replace("{keys}", (mac ? "⌘" : ctrl + "+") + shortcut);
    launcher.setAttribute("aria-keyshortcuts", (mac ? "Meta+" : "Control+") + shortcut);
  }

  // What the MicroPython shell picks up: where things are, the raw config, and
  // whether to open as soon as it is drawn. The shell replaces `toggle`.
  const bridge = (w.__docsPanel = {
    host, root, launcher, config, keys,
    language,
    urls: Object.fromEntries(Object.entries(M.files).map(([k, v]) => [k, abs(v)])),
    openOnReady: false,
    calls: [], // page API calls made before the shell was up: {name, args, resolve, reject}
    call: null, // set by the shell: takes one such call
    shellFiles: null, // a promise of the shell modules: {path: source} as JSON
    toggle: null,
    open: null, // set by the shell: open the panel and focus the question box
    returnFocus: null, // where focus goes back when the panel closes
    quote: "", // a passage chosen before the shell loaded; the shell sets quoted
    quoted: null,
    // Calls that may throw, wrapped: MicroPython cannot catch a synchronous JS
    // exception (it aborts the whole script), so the shell gets values instead.
    storage: {
      get: (area, key) => { try { return w[area].getItem(key); } catch (e) { return null; } },
      set: (area, key, value) => {
        try { w[area].setItem(key, value); return "ok"; }
        catch (e) { return e && e.name === "QuotaExceededError" ? "quota" : "error"; }
      },
      remove: (area, key) => { try { w[area].removeItem(key); } catch (e) {} },
    },
    relativeTime: (lang, value, unit) => {
      const format = (l) => new Intl.RelativeTimeFormat(l, { numeric: "auto" }).format(value, unit);
      try { return format(lang); } catch (e) { return format("en"); }
    },
    // A gzip twin, decoded here unless the host labelled it Content-Encoding: gzip and
    // the browser decoded it already: a host that compresses nothing sends it small too.
    // The shell's modules come this way, MicroPython's wasm (build.py's micropython.mjs)
    // and the code of the runtime modules a host would send uncompressed (function_module).
    gunzipped: async (url, type) => {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
      const [probe, body] = response.body.tee();
      const reader = probe.getReader();
      let head = [];
      while (head.length < 2) {
        const { done, value } = await reader.read();
        if (done) break;
        head = [...head, ...value.subarray(0, 2)];
      }
      reader.cancel();
      const gzipped = head[0] === 0x1f && head[1] === 0x8b;
      const decoded = gzipped ? body.pipeThrough(new DecompressionStream("gzip")) : body;
      return new Response(decoded, { headers: { "Content-Type": type } });
    },
  });

  // The worker's files, fetched into the HTTP cache while the shell starts so the
  // worker finds them there: in two lanes (build.py orders them), so the shell's
  // own requests still find connections. Their names are content-hashed or versioned:
  // a cached copy is taken as it is (WebKit would download it again on a reload).
  const warmCache = () => M.prefetch.forEach(async (lane) => {
    for (const path of lane) {
      try {
        const options = { priority: "low", cache: "force-cache" };
        await (await fetch(abs(path), options)).body.pipeTo(new WritableStream());
      } catch (e) { return; } // the worker will ask, and say what failed
    }
  });
  // A Content Security Policy that forbids what the runtimes need would leave a
  // loading bar forever: test for it before loading, watch for it while loading,
  // and say which directive to change.
  const NEEDS = "script-src 'unsafe-eval' 'wasm-unsafe-eval'; worker-src blob:";
  const SOURCES = { eval: "'unsafe-eval'", "wasm-eval": "'wasm-unsafe-eval'", blob: "blob:" };
  let blocked = null; // the alert shown instead of the panel
  // The page API's calls that can no longer be answered: the runtimes cannot load.
  const refuse = () => bridge.calls.splice(0).map((c) => c.reject(Error("docs-panel: could not load")));
  const evalBlocked = () => {
    try { new Function(""); } catch (e) { return ["script-src", "eval"]; }
    try { new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])); }
    catch (e) { return ["script-src", "wasm-eval"]; }
    return null;
  };
  // Alert `which` (0: the policy blocks the runtimes, 1: they failed to load), `fill`ed
  // in. The alerts in every language would outgrow this file: fetched when needed
  // (rarely), in English if even that fails.
  const alarm = async (which, fill = (text) => text) => {
    // The policy's alert says more than a failure the policy may have caused: it wins.
    refuse();
    if (blocked && (which || !blocked.which)) return;
    blocked?.remove();
    const alert = (blocked = d.createElement("p"));
    alert.which = which;
    alert.setAttribute("role", "alert");
    alert.className = "blocked";
    root.querySelector("[role=progressbar]")?.remove();
    launcher.removeAttribute("aria-busy");
    let words = M.alerts;
    try { words = (await (await fetch(bridge.urls.alerts)).json())[language]; } catch (e) {}
    if (alert !== blocked) return;
    alert.textContent = fill(words[which]);
    root.append(alert);
    console.error("docs-panel: " + alert.textContent);
  };
  const showBlocked = ([directive, what]) => {
    const source = SOURCES[what] || (what.startsWith("http") ? new URL(what).origin : what);
    alarm(0, (text) => text.replace("{missing}", directive + " " + source).replace("{needs}", NEEDS));
  };
  // A runtime file that fails to load (missing, cut short) would leave the launcher busy
  // for good, until the shell is up to speak for itself: the reader is told, once they
  // have asked for the panel (not on a preload they never saw).
  let broken = false;
  const fail = (why) => {
    console.error("docs-panel:", why);
    broken = true;
    refuse();
    if (bridge.openOnReady) alarm(1);
  };
  const failed = (e) => {
    const why = e.reason || e.error;
    if (!booting || bridge.toggle || !String(why && why.stack).includes(base.href)) return;
    e.preventDefault(); // said here, as ours
    fail(why);
  };
  w.addEventListener("error", failed);
  w.addEventListener("unhandledrejection", failed);
  d.addEventListener("securitypolicyviolation", (e) => {
    const what = e.blockedURI;
    if (booting && (Object.hasOwn(SOURCES, what) || what.startsWith(base.href))) {
      showBlocked([e.effectiveDirective, what]);
    }
  });

  let booting = null;
  const loaded = (f) => d.readyState === "complete" ? f() : w.addEventListener("load", f, { once: true });
  const bodyReady = () => d.body ? null : new Promise((r) => d.addEventListener("DOMContentLoaded", r));
  const boot = () => booting || (booting = (async () => {
    const missing = evalBlocked();
    if (missing) return showBlocked(missing);
    warmCache();
    await bodyReady();
    const css = d.createElement("link");
    css.rel = "stylesheet";
    css.href = bridge.urls.css;
    root.append(css);
    // The shell's modules, fetched while PyScript and MicroPython load; its main.py
    // writes them out before its first import.
    bridge.shellFiles = bridge.gunzipped(bridge.urls.shellFiles, "application/json")
      .then((r) => r.text());
    // Each element has its config before PyScript sees it: PyScript reads config
    // once, and otherwise fetches its interpreter from a CDN.
    const script = (type, src, interpreter, attributes = {}) => {
      const s = d.createElement("script");
      Object.assign(s, { type, src });
      attributes.config = JSON.stringify({ interpreter });
      for (const name in attributes) s.setAttribute(name, attributes[name]);
      return d.body.appendChild(s);
    };
    script("mpy", bridge.urls.shell, bridge.urls.micropython);
    // The worker starts when the shell's main() does (it calls this, then awaits
    // `workers["docs-panel-worker"]`), right after MicroPython's bootstrap task. Started
    // at mpy:ready, Pyodide's start ran beside that task: on Fast 4G it grew from
    // ~60 to 106-137 ms; beside the shell's element, 85-170 ms on loopback too.
    // It reads the loader's address when called: a start that makes no progress is
    // made again by the shell with `?cold` on it (shell/client.py).
    bridge.startWorker = () => script("py", bridge.urls.worker,
      bridge.urls.pyodide, { worker: "", name: "docs-panel-worker" });
    await Promise.all([bridge.shellFiles, import(bridge.urls.pyscript)]);
  })().catch(fail));

  launcher.addEventListener("click", () => {
    if (bridge.toggle) return bridge.toggle();
    if (blocked) return; // the alert already says why
    bridge.openOnReady = true;
    if (broken) return alarm(1);
    launcher.setAttribute("aria-busy", "true");
    boot();
  });
  // A reader about to click gives the runtimes a head start of a few hundred ms.
  if (preload === "intent") {
    for (const type of ["pointerenter", "focus"]) launcher.addEventListener(type, () => boot());
  } else if (preload === "idle") {
    loaded(() => (w.requestIdleCallback || setTimeout)(() => boot()));
  }

  // Ctrl+/ (⌘/ on a Mac) opens the panel, never while the reader types in the page.
  d.addEventListener("keydown", (e) => {
    if (!shortcut || e.key !== shortcut || !(mac ? e.metaKey : e.ctrlKey) || e.altKey) return;
    const at = e.composedPath()[0];
    if (at && (at.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(at.tagName))) return;
    e.preventDefault();
    const from = d.activeElement;
    if (from && from !== d.body && from !== host) bridge.returnFocus = from;
    if (bridge.open) return bridge.open();
    if (!blocked && !bridge.openOnReady) launcher.click();
  });

  // "Ask about this" for a passage selected on the page (mouse or keyboard). It lives
  // here, not in the shell, because the shell loads only when the panel first opens.
  // Never for a selection in the panel (events from it come from `host`) or a field.
  let passage = "";
  const offer = (e) => {
    const s = d.getSelection();
    const t = e.target;
    passage = s && !s.isCollapsed ? s.toString().trim() : "";
    ask.hidden = !passage || t === host
      || !!(t.closest && t.closest("input,textarea,select,[contenteditable]"));
    if (ask.hidden) return;
    const r = s.getRangeAt(0).getBoundingClientRect();
    ask.style.left = Math.max(8, Math.min(r.left, innerWidth - 130)) + "px";
    ask.style.top = (r.bottom + 40 < innerHeight ? r.bottom + 6 : Math.max(8, r.top - 34)) + "px";
  };
  d.addEventListener("mouseup", (e) => setTimeout(() => offer(e)));
  d.addEventListener("keyup", offer);
  d.addEventListener("selectionchange", () => { if (d.getSelection().isCollapsed) ask.hidden = true; });
  ask.addEventListener("mousedown", (e) => e.preventDefault()); // keep the selection
  ask.addEventListener("click", () => {
    ask.hidden = true;
    if (bridge.quoted) return bridge.quoted(passage);
    bridge.quote = passage;
    launcher.click();
  });

  // The page API (docs/page-api.md): each call goes to the shell, which checks it and settles its
  // promise; until the shell is up it waits here, and open/ask start the runtimes.
  const api = {};
  for (const name of ["open", "close", "newChat", "ask"]) {
    api[name] = (...args) => new Promise((resolve, reject) => {
      const call = { name, args: JSON.stringify(args), resolve, reject };
      if (bridge.call) return bridge.call(call);
      if (!booting && /^[cn]/.test(name)) return resolve(); // close, newChat: nothing open yet
      bridge.calls.push(call);
      if (broken || blocked) refuse();
      else boot();
    });
  }
  w.docsPanel = Object.isExtensible(cfg) ? Object.assign(cfg, api) : api; // frozen: the API alone

  // A deep link (?ask=…) asks once: the parameter leaves the address bar now, so a
  // reload, a bookmark or the worker's page address never carries it.
  const param = cfg.askParam === null ? null : valid("askParam");
  const link = new URL(location);
  const asked = param && link.searchParams.get(param);
  if (asked != null) {
    link.searchParams.delete(param);
    history.replaceState(history.state, "", link);
    // Asked like a typed question (the worker masks and caps it), once the page has loaded.
    if (asked.trim()) loaded(() => api.open({ question: asked, submit: true }).catch(() => {}));
  }

  // This tab's earlier page left a conversation (or a draft): bring it back now.
  // Only a page that has *left* counts; a tab opened from a live one starts fresh.
  try {
    const s = JSON.parse(sessionStorage.getItem(keys.conversation));
    const [id, left, open] = M.session;
    if (s && s[left] === true && (s[id] || sessionStorage.getItem(keys["composer.draft"]))) {
      bridge.openOnReady = s[open] === true;
      boot();
    }
  } catch (e) {} // no storage, or garbage in it: nothing to restore

  (async () => { await bodyReady(); d.body.append(host); })();
})();
