import Foundation

/// The small login form for the dashboard (sets the admin cookie on success).
enum LoginPage {
    /// The page, with an optional error line.
    static func render(error: String?) -> String {
        let errorHTML = error.map { "<p class=\"err\">\(HTML.escape($0))</p>" } ?? ""
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>RichPush · sign in</title>
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <style>
            body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f8;color:#1d2433;display:grid;place-items:center;min-height:100vh;margin:0}
            form{background:#fff;padding:32px 36px;border-radius:14px;box-shadow:0 4px 24px rgba(20,30,60,.08);width:340px}
            h1{font-size:20px;margin:0 0 6px}p{color:#5b6478;margin:0 0 18px;font-size:13px}
            input{width:100%;box-sizing:border-box;padding:10px 12px;border:1px solid #cfd5e2;border-radius:8px;font:inherit}
            button{margin-top:14px;width:100%;padding:10px;border:0;border-radius:8px;background:#3b5bdb;color:#fff;font:600 15px system-ui,sans-serif;cursor:pointer}
            .err{color:#c92a2a}
            </style></head><body>
            <form method="post" action="/login">
            <h1>RichPush statistics</h1>
            <p>Enter the admin token printed by <code>richpush serve</code>.</p>
            \(errorHTML)
            <input type="password" name="token" placeholder="admin token" autofocus autocomplete="current-password">
            <button type="submit">Sign in</button>
            </form></body></html>
            """
    }
}
