/**
 * The view's stylesheet. Defaults per appearance live in `--d-*` variables; every themeable
 * property reads its `--svc-*` variable first (see variables.ts). Host attributes are matched
 * with `:host(...)`: the rules live inside the shadow root and cannot see the host otherwise.
 */
export const BASE_CSS = `
:host{display:block;--d-fg:#1b1b1f;--d-mut:#4a4a55;--d-bd:#8a8a96;--d-ln:#d4d4dc;--d-pri:#0b57d0;--d-on:#fff;--d-err:#b3261e;--d-ok:#146c2e;--d-bg:#fff;--d-sf:#f3f3f6;--d-sel:#eef3fd;color-scheme:light}
:host([data-theme=dark]){--d-fg:#ececf1;--d-mut:#c2c2cc;--d-bd:#8a8a96;--d-ln:#3a3a44;--d-pri:#a8c7fa;--d-on:#062e6f;--d-err:#f2b8b5;--d-ok:#8fd6a0;--d-bg:#16161a;--d-sf:#26262d;--d-sel:#1d2a40;color-scheme:dark}
*{box-sizing:border-box}
.r{background:var(--svc-bg,var(--d-bg));color:var(--d-fg);font:16px/1.45 system-ui,sans-serif;padding:var(--svc-margin-top,16px) var(--svc-margin-right,16px) var(--svc-margin-bottom,16px) var(--svc-margin-left,16px);border-radius:12px;accent-color:var(--svc-switch,var(--d-pri));display:grid;gap:12px;min-width:0}
h2,h3,p,dl{margin:0}
.mt{font-size:1.25rem;color:var(--svc-main-title-color,inherit);font-family:var(--svc-main-title-font,inherit)}
.d{display:grid;grid-template-columns:auto 1fr;gap:2px 12px}
.dl{color:var(--svc-data-label-color,var(--d-mut));font-family:var(--svc-data-label-font,inherit)}
.dv{margin:0;color:var(--svc-data-value-color,inherit);font-family:var(--svc-data-value-font,inherit);font-weight:600}
fieldset{border:0;margin:0;padding:0;min-width:0}
.lg{font-weight:600;padding:0;margin-bottom:8px}
.o{display:grid;border:1px solid var(--d-bd);border-radius:10px;overflow:hidden}
.op+.op,.op+.un{border-top:1px solid var(--d-ln)}
.op[data-selected]{background:var(--svc-selector-bg,var(--d-sel))}
.oh{display:flex;align-items:center;gap:12px;padding:12px 14px;min-height:52px;cursor:pointer}
.oh input{margin:0;width:20px;height:20px;flex:none}
.tx{display:grid;flex:1;min-width:0}
.t{font-weight:600;color:var(--svc-title-color,var(--svc-selector-fg,inherit));font-family:var(--svc-title-font,var(--svc-selector-font,inherit));overflow-wrap:anywhere}
.st{font-size:.875rem;color:var(--svc-subtitle-color,var(--d-mut));font-family:var(--svc-subtitle-font,inherit)}
.ic{width:24px;height:24px;flex:none;fill:none;stroke:var(--svc-icon,var(--d-pri));stroke-width:1.6;stroke-linecap:round;stroke-linejoin:round}
.br{width:38px;stroke:none}
.f{display:flex;gap:4px;font-size:.875rem}
.ft{color:var(--svc-fees-title-color,var(--d-mut));font-family:var(--svc-fees-title-font,inherit)}
.fs{color:var(--svc-fees-subtitle-color,var(--d-mut));font-family:var(--svc-fees-subtitle-font,inherit)}
.ob{padding:0 14px 14px;display:grid;gap:8px}
.un{display:flex;align-items:center;gap:12px;padding:10px 14px;font-size:.875rem;color:var(--d-mut)}
.un .ic{stroke:var(--d-mut)}
:host([data-layout=minified]) .o{border:0;border-radius:0}
:host([data-layout=minified]) .op[data-selected]{background:none}
:host([data-layout=minified]) .ob{padding:0}
button{font:inherit;min-height:44px;padding:8px 16px;border-radius:8px;cursor:pointer;border:1px solid transparent}
.b{background:var(--svc-button-bg,var(--d-pri));color:var(--svc-button-fg,var(--d-on));font-family:var(--svc-button-font,inherit);font-weight:600;width:100%}
.b:disabled{background:var(--svc-button-bg-disabled,var(--d-sf));color:var(--svc-button-fg-disabled,var(--d-mut));cursor:default}
.sb{background:var(--svc-selector-bg,var(--d-sf));color:var(--svc-selector-fg,var(--d-fg));font-family:var(--svc-selector-font,inherit);border-color:var(--d-bd)}
.sb:disabled{background:var(--svc-selector-bg-disabled,var(--d-sf));color:var(--svc-selector-fg-disabled,var(--d-mut));cursor:default}
fieldset:disabled .oh{cursor:default;opacity:.7}
form{display:grid;gap:6px}
label{color:var(--svc-input-label-color,inherit);font-family:var(--svc-input-label-font,inherit)}
form label{font-weight:600}
input:not([type=radio]){font:inherit;min-height:44px;padding:8px 12px;border:1px solid var(--d-bd);border-radius:8px;background:var(--svc-input-bg,var(--d-bg));color:var(--svc-input-color,var(--d-fg));font-family:var(--svc-input-font,inherit);width:100%}
input[aria-invalid=true]{border:2px solid var(--svc-error-color,var(--d-err))}
[dir=ltr]{text-align:left}
:host([dir=rtl]) input[dir=ltr]{text-align:right}
.h{font-size:.875rem;color:var(--d-mut)}
.e{color:var(--svc-error-color,var(--d-err));font-family:var(--svc-error-font,inherit);font-size:.875rem;font-weight:600}
.e:empty{display:none}
.bn{border:1px solid var(--d-bd);border-radius:10px;padding:12px 14px;display:grid;gap:10px;background:var(--d-sf)}
.bi{display:flex;gap:12px;align-items:flex-start}
.bt{display:grid;gap:2px}
.btt{font-weight:600}
.ba{display:flex;flex-wrap:wrap;gap:8px}
.ba button{flex:1 1 140px}
.sp{width:22px;height:22px;flex:none;border-radius:50%;border:3px solid var(--d-ln);border-top-color:var(--d-pri);animation:spin 1s linear infinite}
.pb{height:4px;border-radius:2px;background:var(--d-ln);overflow:hidden}
.pb span{display:block;height:100%;width:40%;background:var(--d-pri);animation:slide 1.4s ease-in-out infinite}
:host([dir=rtl]) .pb span{animation-direction:reverse}
@keyframes spin{to{transform:rotate(360deg)}}
@keyframes slide{from{transform:translateX(-100%)}to{transform:translateX(250%)}}
@media (prefers-reduced-motion:reduce){.sp,.pb span{animation:none}}
.sk{display:grid;gap:10px}
.sk span{height:52px;border-radius:10px;background:linear-gradient(90deg,var(--d-sf),var(--d-ln),var(--d-sf));background-size:200% 100%;animation:shine 1.4s linear infinite}
.sk span:first-child{height:28px;width:40%}
@keyframes shine{to{background-position:-200% 0}}
@media (prefers-reduced-motion:reduce){.sk span{animation:none}}
.out{display:grid;justify-items:center;text-align:center;gap:8px;padding:8px 0}
.out:focus{outline:none}
.out:focus-visible{outline:3px solid var(--d-pri);outline-offset:2px}
.out .d{justify-self:stretch;text-align:start;border-top:1px solid var(--d-ln);padding-top:8px;margin-top:4px}
.oi{width:48px;height:48px;stroke-width:1.4}
.success .oi{stroke:var(--d-ok)}
.declined .oi,.error .oi{stroke:var(--svc-error-color,var(--d-err))}
.ot{font-size:1.25rem}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
:focus-visible{outline:3px solid var(--d-pri);outline-offset:2px}
[hidden]{display:none!important}
`;
