/// The CSS the dashboard and the per-push page share (inline: the Content-Security-Policy allows
/// inline styles and nothing from outside).
///
/// Responsive: from 1,100 px down the key figures take 3 columns and the panels stack; from 700 px
/// down (phones, 390 px) 2 columns, tighter margins, and what cannot shrink scrolls sideways in its
/// own box rather than the page: the pushes table (cells on one line) and the wide charts (`svg.wide`
/// keeps at least 640 px, so its 11 px labels stay readable).
enum PageStyle {
    static let css = """
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;background:#f4f5f8;color:#1d2433}
        a{color:#3b5bdb;text-decoration:none}a:hover{text-decoration:underline}
        header{display:flex;align-items:center;justify-content:space-between;padding:16px 28px;background:#fff;border-bottom:1px solid #e3e7ef}
        header h1{font-size:18px;margin:0}header h1 span{color:#3b5bdb}header h1 a{color:inherit}
        header .meta{color:#7a8397;font-size:12.5px;display:flex;gap:14px;align-items:center}
        header button{border:1px solid #cfd5e2;background:#fff;border-radius:7px;padding:5px 12px;font:inherit;cursor:pointer}
        main{padding:20px 28px 36px;max-width:1400px;margin:0 auto}
        .cards{display:grid;grid-template-columns:repeat(6,1fr);gap:14px;margin-bottom:18px}
        .card{background:#fff;border-radius:12px;padding:14px 16px;box-shadow:0 1px 3px rgba(20,30,60,.06);min-width:0}
        .card .k{color:#5b6478;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
        .card .v{font-size:24px;font-weight:650;margin:4px 0 2px;line-height:1.2}
        .card .d{color:#7a8397;font-size:12px}
        .grid{display:grid;grid-template-columns:2fr 1fr;gap:16px;margin-bottom:16px}
        .grid3{display:grid;grid-template-columns:1fr 1fr 1fr;gap:16px;margin-bottom:16px}
        .panel{background:#fff;border-radius:12px;padding:16px 18px;box-shadow:0 1px 3px rgba(20,30,60,.06);min-width:0}
        .panel h2{font-size:14.5px;margin:0 0 2px}.panel .sub{color:#7a8397;font-size:12px;margin-bottom:10px}
        .panel .minor{color:#5b6478;font-size:12px;font-weight:600;margin:10px 0 4px}
        .legend{display:flex;gap:14px;font-size:12px;color:#5b6478;margin-bottom:6px}
        .legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
        table{width:100%;border-collapse:collapse;font-size:13px}
        th{text-align:left;color:#5b6478;font-weight:600;font-size:12px;padding:8px 10px;border-bottom:1px solid #e3e7ef}
        td{padding:8px 10px;border-bottom:1px solid #f0f2f6}
        th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}
        td.num,td.when,.muted{white-space:nowrap}.scroll{overflow-x:auto}
        .mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;unicode-bidi:isolate}
        .empty{color:#7a8397;text-align:center;padding:24px}
        .filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:8px 0 12px}
        .filters label{display:flex;flex-direction:column;font-size:12px;color:#5b6478;gap:3px}
        .filters input{border:1px solid #cfd5e2;border-radius:7px;padding:6px 9px;font:inherit;min-width:150px}
        .filters button{border:0;border-radius:7px;padding:7px 14px;background:#3b5bdb;color:#fff;font:600 13px system-ui,sans-serif;cursor:pointer}
        .pager{display:flex;justify-content:space-between;align-items:center;margin-top:12px;font-size:13px;color:#7a8397}
        .pager .off{color:#b5bccb}
        .problem{background:#fff4e6;border:1px solid #ffd8a8;color:#8a4b08;border-radius:8px;padding:8px 12px;margin-bottom:12px}
        .crumbs{font-size:13px;margin-bottom:10px}
        .src{display:inline-block;font-size:11.5px;padding:1px 7px;border-radius:9px;background:#e7ecfb;color:#2f4ab8;white-space:nowrap}
        .src.ext{background:#eef6ec;color:#2f7a2a}.muted{color:#9aa2b3;font-size:12px}
        .chart{overflow-x:auto}.chart svg{display:block}
        @media (max-width:1100px){
        .cards{grid-template-columns:repeat(3,1fr)}
        .grid,.grid3{grid-template-columns:minmax(0,1fr)}
        }
        @media (max-width:700px){
        header{flex-wrap:wrap;gap:6px 12px;padding:12px 14px}
        header .meta{flex-wrap:wrap;gap:6px 12px}
        main{padding:12px 12px 28px}
        .cards{grid-template-columns:repeat(2,minmax(0,1fr));gap:10px;margin-bottom:12px}
        .card{padding:12px}.card .v{font-size:21px}
        .grid,.grid3{gap:12px;margin-bottom:12px}
        .panel{padding:14px 12px}
        .chart svg.wide{min-width:640px}
        th,td{padding:7px 8px}.scroll th,.scroll td{white-space:nowrap}
        .filters label{flex:1 1 140px}.filters input{min-width:0;width:100%}
        .pager{gap:8px}
        }
        """
}
