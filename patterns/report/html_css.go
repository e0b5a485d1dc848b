package report

// pageCSS styles the HTML pages (plan and diff). System fonts only: the
// page loads nothing. Colours pass WCAG AA for text on their fill; an
// entity's colour is its class eN (--fill, --edge); a selected read sets
// --hit on the rows it returned (the browser test reads it).
const pageCSS = `:root{--ink:#111827;--muted:#4b5563;--line:#d1d5db;--bg:#ffffff;--panel:#f9fafb;--accent:#1d4ed8;
--sel-col:#fff7d6;--bad:#b91c1c;--warn:#92400e;--ok:#166534;--fill:#f3f4f6;--edge:#6b7280;color-scheme:light}
*{box-sizing:border-box}
html{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
code,var,.key{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
var{font-style:normal;color:#6d28d9}
a{color:var(--accent)}
a:focus-visible,[tabindex]:focus-visible{outline:3px solid #f59e0b;outline-offset:2px;border-radius:3px}
.skip{position:absolute;left:-9999px;top:0;background:#fff;padding:6px 10px;z-index:10}
.skip:focus{left:8px}
header{padding:18px 24px 10px;border-bottom:1px solid var(--line);background:linear-gradient(#f8fafc,#fff)}
h1{margin:0 0 4px;font-size:22px;font-weight:650}
h1 .name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
h2{font-size:16px;margin:22px 0 8px;padding-bottom:4px;border-bottom:2px solid var(--ink)}
h3{font-size:14px;margin:0 0 4px}
.facts{margin:2px 0;color:var(--muted)}
.facts .sep{margin:0 4px;color:var(--line)}
.src{margin:2px 0;color:var(--muted);font-size:12px}
nav{margin-top:8px;display:flex;gap:14px;flex-wrap:wrap;font-size:13px}
.layout{display:grid;grid-template-columns:minmax(280px,340px) minmax(0,1fr);gap:0;align-items:start}
aside{position:sticky;top:0;max-height:100vh;overflow:auto;padding:4px 16px 24px 24px;border-right:1px solid var(--line);background:var(--panel)}
main{padding:0 24px 24px;min-width:0}
.hint{color:var(--muted);font-size:12.5px;margin:4px 0 8px}
ol.patterns{list-style:none;margin:0;padding:0}
li.pattern{background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px 12px;margin:0 0 10px}
li.pattern p{margin:3px 0}
.badge{display:inline-block;font-size:11.5px;font-weight:600;padding:1px 7px;border-radius:10px;background:#e5e7eb;color:#1f2937}
.badge.ix{background:#dbeafe;color:#1e3a8a}
.badge.bad{background:#fee2e2;color:var(--bad)}
.cond code{word-break:break-all}
.pcost{color:var(--muted);font-size:12px}
ul.reads{list-style:none;margin:6px 0 0;padding:0}
ul.reads li{margin:3px 0;font-size:12.5px}
a.read{display:inline-block;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;padding:2px 8px;border:1px solid #93c5fd;border-radius:6px;background:#eff6ff;text-decoration:none;color:#1e3a8a}
a.read:hover{background:#dbeafe}
.tgt{position:fixed;top:0;left:0;width:0;height:0;overflow:hidden}
.tgt:target+a.read{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
.result{color:var(--muted)}
.from{color:var(--muted);font-size:11.5px}
.noread{color:var(--muted);font-size:12px;font-style:italic}
.ok{color:var(--ok);font-weight:600}
.bad{color:var(--bad);font-weight:600}
.warn{color:var(--warn);font-weight:600}
.note{color:var(--muted);margin:4px 0 8px}
.caption{display:none;margin:6px 0;padding:6px 10px;border-left:4px solid var(--accent);background:#eff6ff}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse}
table.grid{width:100%;font-size:12.5px}
.grid th,.grid td{border-bottom:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top;white-space:nowrap}
.grid thead th{position:sticky;top:0;background:#f3f4f6;font-weight:600;border-bottom:2px solid var(--line);z-index:1}
.grid thead th.gsi{background:#eef2ff}
.grid thead th .ixname{display:block;font-size:10.5px;font-weight:500;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.grid td.key{border-left:1px solid #f0f0f0}
.grid td.none{background-image:repeating-linear-gradient(135deg,transparent 0 5px,#d9dce1 5px 6.5px)}
.grid td.attrs{white-space:normal;min-width:640px;font-size:12px}
.grid tr.newpart>*{border-top:2px solid #9ca3af}
.grid tbody tr{box-shadow:inset 5px 0 0 var(--edge)}
.grid tbody tr>th{padding-left:12px;font-weight:600}
.iname{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.rank::after{content:none;display:inline-block;min-width:18px;margin-right:6px;padding:0 4px;text-align:center;border-radius:9px;background:var(--edge);color:#fff;font-size:11px;line-height:18px}
body:has(.tgt:target) .items-grid tbody tr{opacity:.38}
.chip{display:inline-block;padding:0 7px;border-radius:9px;background:var(--fill);border:1px solid var(--edge);color:#111827;font-size:12px;font-weight:600}
.av{display:inline-block;margin:1px 6px 1px 0}
.an{color:var(--muted)}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:12px}
.card{border:1px solid var(--line);border-top:5px solid var(--edge);border-radius:8px;padding:10px 12px;background:#fff}
.card p{margin:4px 0}
ul.attrlist{margin:4px 0;padding:0;list-style:none;columns:2;font-size:12.5px}
table.keys{font-size:12.5px;margin-top:6px;width:100%}
table.keys th,table.keys td{text-align:left;padding:2px 6px;border-bottom:1px solid #eee;vertical-align:top}
table.plain{font-size:13px;width:100%}
table.plain th,table.plain td{text-align:left;padding:5px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
table.plain thead th{background:#f3f4f6}
table.num td{font-variant-numeric:tabular-nums}
ul.findings{list-style:none;margin:6px 0 0;padding:0}
li.finding{margin:3px 0;padding:4px 8px;border-radius:5px;font-size:12.5px}
.finding.error{background:#fef2f2;border-left:4px solid var(--bad)}
.finding.warning{background:#fffbeb;border-left:4px solid #d97706}
.finding.info{background:#f0f9ff;border-left:4px solid #0284c7}
.sev{font-weight:700;text-transform:uppercase;font-size:11px}
.rule{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11.5px}
.fix{display:block;color:#374151}
.at{display:block;color:var(--muted);font-size:11.5px}
.big{font-size:15px}
footer{padding:12px 24px;color:var(--muted);font-size:12px;border-top:1px solid var(--line)}
ol.timeline{list-style:none;margin:0;padding:0 0 0 18px;border-left:3px solid var(--line)}
ol.timeline>li{position:relative;margin:0 0 16px;padding:8px 12px;border:1px solid var(--line);border-radius:8px;background:#fff}
ol.timeline>li::before{content:"";position:absolute;left:-27px;top:12px;width:14px;height:14px;border-radius:50%;background:#fff;border:3px solid var(--accent)}
ol.timeline>li.now::before{border-color:var(--muted)}
ol.timeline>li.done::before{background:var(--ok);border-color:var(--ok)}
.step{display:flex;gap:24px;flex-wrap:wrap}
.step>div{flex:1 1 300px;min-width:0}
.op-create{color:var(--ok);font-weight:600}
.op-delete{color:var(--bad);font-weight:600}
.op-backfill{color:var(--warn);font-weight:600}
.verdict{font-size:15px;padding:8px 12px;border-radius:6px;background:#f3f4f6;margin:8px 0}
.verdict.bad{background:#fef2f2}
.verdict.ok{background:#f0fdf4}
@media (max-width:900px){.layout{display:block}aside{position:static;max-height:none;border-right:0}}
@media print{
body{font-size:11px}
.layout{display:block}
aside{position:static;max-height:none;overflow:visible;border:0;background:none;padding:0 12px}
main{padding:0 12px}
.scroll{overflow:visible;border:0}
.grid th,.grid td{white-space:normal;word-break:break-all}
.grid thead th{position:static}
nav,.skip,.hint,footer{display:none}
li.pattern,.card,ol.timeline>li,tr{break-inside:avoid}
.caption{display:none!important}
body:has(.tgt:target) .items-grid tbody tr{opacity:1}
a{color:inherit;text-decoration:none}
h2{break-after:avoid}
}
`
