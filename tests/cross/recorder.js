// What a reader would call broken, kept in this tab's sessionStorage so that it
// outlives reloads until the test reads it: console.error, uncaught errors and
// rejections. Loaded first by every page of the cross-engine suite.
(() => {
  const KEY = "tests.problems";
  const keep = (text) => {
    const kept = JSON.parse(sessionStorage.getItem(KEY) || "[]");
    kept.push(String(text));
    sessionStorage.setItem(KEY, JSON.stringify(kept));
  };
  const error = console.error;
  console.error = (...args) => {
    keep("console.error: " + args.map(String).join(" "));
    error.apply(console, args);
  };
  addEventListener("error", (event) => keep("page error: " + event.message));
  addEventListener("unhandledrejection", (event) =>
    keep("unhandled rejection: " + (event.reason?.message ?? event.reason)),
  );
})();
