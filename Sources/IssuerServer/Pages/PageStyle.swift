import Crypto
import Foundation
import IssuerCore

/// The one style sheet of the pages people see (docs/reference.md, "The pages people see"),
/// built once from the theme and put inline in every page. Its SHA-256 is the page's only
/// `style-src` source, so nothing but this exact text may style a page (CSP Level 3 hash
/// sources); no `style` attribute is ever written, since a hash source does not allow those.
///
/// Mobile first: one card of at most 400 px, buttons the card's width and 48 px high (above
/// the 44 px touch targets ask for); the dark palette under `prefers-color-scheme: dark`.
/// The provider buttons keep their owners' colours whatever the theme says.
struct PageStyle: Sendable {
    /// The text between `<style>` and `</style>`.
    let css: String
    /// `'sha256-…'`: the CSP source that allows exactly `css`.
    let source: String

    init(theme: PageTheme) {
        css = Self.sheet(theme)
        source = "'sha256-" + Data(SHA256.hash(data: Data(css.utf8))).base64EncodedString() + "'"
    }

    private static func variables(_ palette: PageTheme.Palette) -> String {
        "--bg:\(palette.background);--surface:\(palette.surface);--text:\(palette.text);--muted:\(palette.muted);"
            + "--accent:\(palette.accent);--border:\(palette.border)"
    }

    private static func sheet(_ theme: PageTheme) -> String {
        """
        :root{color-scheme:light dark;\(variables(theme.light))}\
        @media (prefers-color-scheme:dark){:root{\(variables(theme.dark))}}\
        *{box-sizing:border-box}\
        html{-webkit-text-size-adjust:100%;text-size-adjust:100%}\
        body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px;\
        background:var(--bg);color:var(--text);\
        font:16px/1.5 system-ui,-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}\
        main{width:100%;max-width:400px;padding:32px 24px;background:var(--surface);border-radius:16px;\
        box-shadow:0 1px 3px rgba(0,0,0,.12),0 8px 24px rgba(0,0,0,.08);text-align:center}\
        .brand{display:flex;flex-direction:column;align-items:center;gap:12px;margin:0 0 20px}\
        .logo{display:block;height:64px;width:auto;max-width:200px;object-fit:contain}\
        .app{margin:0;font-size:1.125rem;font-weight:600;overflow-wrap:anywhere}\
        h1{margin:0 0 8px;font-size:1.5rem;line-height:1.25;font-weight:650}\
        p{margin:0}\
        .lead{margin:0 0 24px;color:var(--muted)}\
        .status{display:block;width:48px;height:48px;margin:0 auto 16px;color:var(--accent)}\
        .details{margin:24px 0 0;padding-top:16px;border-top:1px solid var(--border);font-size:.875rem;\
        color:var(--muted);overflow-wrap:anywhere}\
        .providers{list-style:none;margin:0;padding:0;display:grid;gap:12px}\
        .button{display:flex;align-items:center;justify-content:center;gap:10px;min-height:48px;padding:10px 16px;\
        border:1px solid transparent;border-radius:8px;font-size:17px;font-weight:600;line-height:1.25;\
        text-decoration:none}\
        .button svg{flex:none;width:20px;height:20px}\
        .button:focus-visible{outline:3px solid var(--accent);outline-offset:3px}\
        .apple{background:#000;color:#fff}\
        .google{background:#fff;color:#1f1f1f;border-color:#747775;font-family:Roboto,system-ui,sans-serif;font-weight:500}\
        .facebook{background:#1877f2;color:#fff;font-size:19px;font-weight:700}\
        .neutral{background:var(--surface);color:var(--text);border-color:var(--border)}\
        @media (prefers-color-scheme:dark){\
        main{box-shadow:none}\
        .apple{background:#fff;color:#000}\
        .google{background:#131314;color:#e3e3e3;border-color:#8e918f}}\
        @media (min-width:600px){main{padding:40px 40px 36px}}
        """
    }
}
