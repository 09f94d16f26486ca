/**
 * The look shared by the pages a paying customer sees: svc's hosted card page and the sandbox
 * gateway's challenge and bank pages. Plain CSS for one <style> element, light and dark from
 * prefers-color-scheme, logical properties so Arabic (right to left) mirrors, and a full-width
 * card on phones (320 px up). It imports nothing, so checkout/ and gateways/ can both use it.
 */
export const PAGE_CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#545d68;--accent:#0b5cd5;--accent-fg:#fff;--err:#b00020;--border:#8a939e;--line:#d5d9de}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--card:#1b2026;--fg:#eef1f4;--muted:#b4bcc6;--accent:#7fb0ff;--accent-fg:#0b1220;--err:#ff8a8a;--border:#6b7580;--line:#39414b}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:var(--card);border-radius:12px;border:1px solid var(--line)}
@media (max-width:30rem){main{margin:0;border:0;border-radius:0;padding:1.25rem 1rem;min-height:100vh}}
a{color:var(--accent)}
h1{font-size:1.4rem;line-height:1.25;margin:0 0 1rem}
p{margin:0 0 1rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1.25rem;padding-block-end:1rem;border-block-end:1px solid var(--line)}
dl:last-child{margin:0;padding:0;border:0}
dt{color:var(--muted)}dd{margin:0;font-weight:600;overflow-wrap:anywhere}dd.total{font-size:1.25rem;line-height:1.3}
label,legend{display:block;margin-block:.75rem .25rem;font-weight:600;padding:0}
.hint{color:var(--muted);font-size:.875rem;margin:-.15rem 0 .3rem}
input[type=text]{width:100%;padding:.6rem;font:inherit;border:1px solid var(--border);border-radius:6px;background:var(--card);color:var(--fg)}
input::placeholder{color:var(--muted);opacity:1}
input[aria-invalid=true]{border:2px solid var(--err)}
.row{display:grid;grid-template-columns:1fr 1fr;column-gap:1rem}
.row>div{display:grid;grid-row:span 3;grid-template-rows:subgrid;min-width:0}
.row label{align-self:end}
.card-number{position:relative}
.card-number input{padding-inline-end:3.5rem}
.brand{position:absolute;inset-block:0;right:.6rem;display:flex;align-items:center;pointer-events:none;color:var(--muted)}
.brand svg{display:block}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.field-error{color:var(--err);margin:.3rem 0 0;font-size:.875rem;font-weight:600}.field-error:empty{display:none}
.check{display:flex;gap:.5rem;align-items:center;margin-top:1rem}.check label{margin:0;font-weight:400}
.check input{width:1.15rem;height:1.15rem;margin:0;flex:none}
fieldset{border:0;padding:0;margin:0;min-width:0}
button,.button,input[type=submit]{display:block;white-space:normal;box-sizing:border-box;margin-top:1.5rem;width:100%;padding:.75rem;font:inherit;font-weight:600;border:2px solid var(--accent);border-radius:6px;background:var(--accent);color:var(--accent-fg);text-align:center;text-decoration:none;cursor:pointer;appearance:none}
button.secondary,.button.secondary,input.secondary{background:transparent;color:var(--accent);border-color:var(--border);margin-top:.75rem}
.errors{border:2px solid var(--err);border-radius:6px;padding:.75rem 1rem;margin-bottom:1rem}
.errors h2{font-size:1rem;margin:0 0 .25rem;color:var(--err)}
.errors ul{margin:0;padding-inline-start:1.25rem}.errors a{color:var(--err);font-weight:600}
.errors:focus{outline:3px solid var(--err);outline-offset:2px}
.overline{color:var(--muted);font-size:.875rem;margin:0 0 .25rem;overflow-wrap:anywhere}.overline strong{color:var(--fg)}
.nowrap{white-space:nowrap}
.actions{display:grid;gap:.75rem;margin-top:1.5rem}.actions button{margin:0}
.notice{margin:1.5rem 0 0;color:var(--muted);font-size:.875rem;text-align:center}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;
