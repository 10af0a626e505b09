#include "report/report_style.h"

namespace pi_fusion::report {

// Pure data: the page's colours, layout and the SVG pictures' classes.
const char kReportCss[] = R"css(
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1c1e21;--muted:#5f6670;--line:#d5d9de;
--panel:#f5f7f9;--warn-bg:#fff4d6;--warn-fg:#6b4a00;--bad-bg:#fde2e1;--bad-fg:#8a1c14;
--ok:#1d7a3a;--candidate:#3a6fd8;--evaluator:#9b4dca;--repair:#d0741c;--merger:#1d9a7a;
--grace:rgba(208,116,28,.16);--cut:#c0392b}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e8eb;--muted:#a2a9b3;--line:#343a42;
--panel:#1e2227;--warn-bg:#3b3113;--warn-fg:#f3d48a;--bad-bg:#45201d;--bad-fg:#ffb4ab;--ok:#5fd38a;
--candidate:#7aa5ff;--evaluator:#c99bf0;--repair:#f0a35c;--merger:#5fd3b3;
--grace:rgba(240,163,92,.2);--cut:#ff7b6b}}
*{box-sizing:border-box}
body{margin:0;padding:24px;background:var(--bg);color:var(--fg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1400px;margin:0 auto}
h1{font-size:1.5em;margin:0 0 4px}h2{border-bottom:1px solid var(--line);padding-bottom:4px;
margin-top:32px}h3{margin-top:20px}h4{margin:12px 0 4px}
.meta{color:var(--muted)}
.notice{background:var(--warn-bg);color:var(--warn-fg);padding:8px 12px;border-radius:6px;
margin:8px 0}
.problem{background:var(--bad-bg);color:var(--bad-fg);padding:8px 12px;border-radius:6px;margin:8px 0}
.none{color:var(--muted);font-style:italic}
.markdown{overflow-wrap:anywhere}
.markdown pre,pre{background:var(--panel);padding:8px;border-radius:6px;overflow-x:auto;
white-space:pre-wrap}
code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.92em}
table{border-collapse:collapse;margin:8px 0;max-width:100%}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.candidates{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:16px}
@media (max-width:900px){.candidates{grid-template-columns:1fr}}
.candidate{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:12px;
min-width:0}
.candidate h3{margin-top:0}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 8px}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.calls li.refused,.calls li.failed{color:var(--bad-fg)}
.conflict,.finding,.assessment{border-left:4px solid var(--repair);padding:4px 12px;margin:8px 0}
.assessments{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:12px}
.label{color:var(--muted);margin:6px 0 0}
td.ok{color:var(--ok)}td.bad{color:var(--bad-fg);font-weight:600}
td.hash{font-family:ui-monospace,monospace;font-size:.8em;overflow-wrap:anywhere}
svg{width:100%;height:auto;display:block}
svg text{fill:var(--fg);font-size:13px;font-family:system-ui,sans-serif}
svg .tick{stroke:var(--line)}svg .tick-label{fill:var(--muted);font-size:11px}
svg .lane-note{fill:var(--muted);font-size:12px}
svg .bar.open{opacity:.45}
svg .role-candidate .bar{fill:var(--candidate)}svg .role-evaluator .bar{fill:var(--evaluator)}
svg .role-repair .bar{fill:var(--repair)}svg .role-merger .bar{fill:var(--merger)}
svg .bar.cost{opacity:.7}
svg .mark.start{fill:var(--bg);stroke:var(--fg);stroke-width:1.5}
svg .mark.answer{fill:var(--ok);stroke:var(--bg)}
svg .mark.exit{stroke:var(--cut);stroke-width:2.5;fill:none}
svg .call-ticks.ok{fill:var(--fg);opacity:.5}svg .call-ticks.refused{fill:var(--cut)}
svg .mark.first-output{stroke:var(--fg);stroke-width:1.5;fill:var(--fg)}
svg .mark.process-exit{stroke:var(--fg);stroke-width:2;fill:none}
svg .after-answer{stroke:var(--muted);stroke-width:2;stroke-dasharray:3 3}
svg .grace-window{fill:var(--grace)}svg .cut{stroke:var(--cut);stroke-width:2;stroke-dasharray:4 3}
svg .cut-label{fill:var(--cut);font-size:11px}
)css";

}  // namespace pi_fusion::report
