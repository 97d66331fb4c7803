// The page's only stylesheet, served from /ui/static/app.css (the CSP admits styles from our own origin only).
/** Stylesheet text. */
export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --add: #dafbe1; --del: #ffebe9;
  --warn: #9a6700; --bad: #cf222e; --ok: #1a7f37; --box: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --add: #12361f;
  --del: #3c1618; --warn: #d29922; --bad: #f85149; --ok: #3fb950; --box: #151b23; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); }
nav { display: flex; gap: 1em; align-items: center; margin-left: auto; }
main { padding: 1em 1.2em; max-width: 1200px; }
a { color: inherit; }
h1 { font-size: 1.4em; margin: .2em 0 .6em; } h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
/* Identifiers (branches, repositories, ids, agents, times) stay on one line: a branch name broken at its "-" reads as
   two names. Prose cells (a change's summary, a detail) still wrap. */
thead th, .proposals td:not(:nth-child(5)), .decided td:not(:last-child), .perimeters td:not(:nth-child(3)), .perimeters td code,
.audit td:not(:last-child), .upstreams td:first-child { white-space: nowrap; }
/* On a narrow screen a table scrolls sideways inside its own box instead of running off the page. */
@media (max-width: 760px) {
  table { display: block; max-width: 100%; overflow-x: auto; }
  main, header { padding-left: .6em; padding-right: .6em; }
  header { flex-wrap: wrap; }
}
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.notice { padding: .5em .8em; border: 1px solid var(--line); background: var(--box); }
.flag { display: inline-block; padding: 0 .45em; margin: 0 .2em .2em 0; border: 1px solid var(--warn); color: var(--warn);
  border-radius: 1em; font-size: 12px; white-space: nowrap; }
.flag.bad { border-color: var(--bad); color: var(--bad); }
.ok { color: var(--ok); } .bad { color: var(--bad); }
.reason { border-left: 4px solid var(--warn); background: var(--box); padding: .6em .9em; white-space: pre-wrap; overflow-wrap: anywhere; }
.reason-label { font-size: 12px; color: var(--warn); font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
.facts th { width: 14em; }
.file { border: 1px solid var(--line); margin: 1em 0; }
.file > h3 { margin: 0; padding: .4em .7em; font-size: 13px; background: var(--box); border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.diff { margin: 0; overflow-x: auto; }
.diff .l { display: block; white-space: pre; padding: 0 .7em; min-height: 1.3em; }
.diff .add { background: var(--add); } .diff .del { background: var(--del); } .diff .hunk { color: var(--muted); background: var(--box); }
.cut { color: var(--muted); font-style: italic; }
.more { padding: .4em .7em; color: var(--muted); }
form.inline { display: inline; margin: 0; }
.decide { display: flex; gap: 2em; flex-wrap: wrap; margin: 1.5em 0; padding: 1em; border: 1px solid var(--line); }
.decide form { display: flex; flex-direction: column; gap: .5em; min-width: 18em; }
textarea { min-height: 4em; font: inherit; }
button { font: inherit; padding: .3em .9em; cursor: pointer; }
button.approve { border: 1px solid var(--ok); color: var(--ok); background: var(--bg); }
button.reject { border: 1px solid var(--bad); color: var(--bad); background: var(--bg); }
.signin { max-width: 26em; display: flex; flex-direction: column; gap: .6em; }
`;
