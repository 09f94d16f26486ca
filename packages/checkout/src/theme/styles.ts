/**
 * The view's stylesheet. Defaults per appearance live in `--d-*` variables; every themeable
 * property reads its `--svc-*` variable first (see variables.ts).
 */
export const BASE_CSS = `
:host{display:block;--d-fg:#1b1b1f;--d-mut:#4a4a55;--d-bd:#8a8a96;--d-pri:#0b57d0;--d-on:#fff;--d-err:#b3261e;--d-bg:#fff;--d-sf:#f3f3f6;color-scheme:light}
:host([data-theme=dark]){--d-fg:#ececf1;--d-mut:#c2c2cc;--d-bd:#8a8a96;--d-pri:#a8c7fa;--d-on:#062e6f;--d-err:#f2b8b5;--d-bg:#16161a;--d-sf:#26262d;color-scheme:dark}
*{box-sizing:border-box}
.r{background:var(--svc-bg,var(--d-bg));color:var(--d-fg);font:16px/1.45 system-ui,sans-serif;padding:var(--svc-margin-top,16px) var(--svc-margin-right,16px) var(--svc-margin-bottom,16px) var(--svc-margin-left,16px);border-radius:12px;accent-color:var(--svc-switch,var(--d-pri))}
h2,h3,p,dl,ul{margin:0}
.mt{font-size:1.25rem;margin-bottom:8px;color:var(--svc-main-title-color,inherit);font-family:var(--svc-main-title-font,inherit)}
.d{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin-bottom:12px}
.dl{color:var(--svc-data-label-color,var(--d-mut));font-family:var(--svc-data-label-font,inherit)}
.dv{margin:0;color:var(--svc-data-value-color,inherit);font-family:var(--svc-data-value-font,inherit)}
.o{list-style:none;padding:0;display:grid;gap:12px}
.op{border:1px solid var(--d-bd);border-radius:10px;padding:12px;display:grid;gap:8px}
[data-layout=minified] .op{border:0;padding:0}
.t{font-size:1rem;display:flex;gap:8px;align-items:center;color:var(--svc-title-color,inherit);font-family:var(--svc-title-font,inherit)}
.st{color:var(--svc-subtitle-color,var(--d-mut));font-family:var(--svc-subtitle-font,inherit)}
.ic{color:var(--svc-icon,var(--d-pri))}
.f{display:flex;gap:8px;font-size:.875rem}
.ft{color:var(--svc-fees-title-color,var(--d-mut));font-family:var(--svc-fees-title-font,inherit)}
.fs{color:var(--svc-fees-subtitle-color,var(--d-mut));font-family:var(--svc-fees-subtitle-font,inherit)}
button{font:inherit;min-height:44px;padding:8px 16px;border-radius:8px;cursor:pointer;border:1px solid transparent}
.b{background:var(--svc-button-bg,var(--d-pri));color:var(--svc-button-fg,var(--d-on));font-family:var(--svc-button-font,inherit)}
.b:disabled{background:var(--svc-button-bg-disabled,var(--d-sf));color:var(--svc-button-fg-disabled,var(--d-mut));cursor:default}
.sb{background:var(--svc-selector-bg,var(--d-sf));color:var(--svc-selector-fg,var(--d-fg));font-family:var(--svc-selector-font,inherit);border-color:var(--d-bd);text-align:start}
.sb:disabled{background:var(--svc-selector-bg-disabled,var(--d-sf));color:var(--svc-selector-fg-disabled,var(--d-mut));cursor:default}
form{display:grid;gap:6px}
label{color:var(--svc-input-label-color,inherit);font-family:var(--svc-input-label-font,inherit)}
input{font:inherit;min-height:44px;padding:8px 12px;border:1px solid var(--d-bd);border-radius:8px;background:var(--svc-input-bg,var(--d-bg));color:var(--svc-input-color,var(--d-fg));font-family:var(--svc-input-font,inherit)}
[dir=ltr]{text-align:left}
.h{font-size:.875rem;color:var(--d-mut)}
.e{color:var(--svc-error-color,var(--d-err));font-family:var(--svc-error-font,inherit)}
.e:empty,.s:empty{display:none}
.s{margin-top:12px}
:focus-visible{outline:3px solid var(--d-pri);outline-offset:2px}
[hidden]{display:none!important}
`;
