@testable import issuer
import Testing

/// `--env-file` reads systemd's `EnvironmentFile=` format (systemd.exec(5)); each case is a line
/// systemd reads the same way.
@Suite struct EnvironmentFileTests {
    @Test("comments, blank lines, lines without '=', surrounding whitespace")
    func basics() {
        let file = EnvironmentFile(parsing: """
            # the unit's settings
            ; also a comment

              ISSUER_URL = https://id.example.com  \t
            not an assignment
            ISSUER_PORT=8080
            EMPTY=
            """)
        #expect(file.values == ["ISSUER_URL": "https://id.example.com", "ISSUER_PORT": "8080", "EMPTY": ""])
        #expect(file.ignored.isEmpty)
    }

    @Test("quotes: single taken literally, double with systemd's escapes, adjacent pieces joined")
    func quotes() {
        let file = EnvironmentFile(parsing: #"""
            A='it has # and $HOME and \n'
            B="say \"hi\" \\ \$x \q"
            C="a b"'c d'
            D=  "  padded  "
            E=x # not a comment
            """#)
        #expect(file.values["A"] == #"it has # and $HOME and \n"#)
        #expect(file.values["B"] == #"say "hi" \ $x \q"#)
        #expect(file.values["C"] == "a bc d")
        #expect(file.values["D"] == "  padded  ")
        #expect(file.values["E"] == "x # not a comment")
    }

    @Test("a backslash at the end of a line continues the value; elsewhere it escapes one character")
    func continuation() {
        let file = EnvironmentFile(parsing: "A=one \\\ntwo\nB=keep\\ \nC=\"x\\\ny\"\n")
        #expect(file.values["A"] == "one two")
        #expect(file.values["B"] == "keep ")
        #expect(file.values["C"] == "xy")
    }

    @Test("the last assignment of a name wins; CRLF line ends; no newline at the end")
    func lastWinsAndLineEnds() {
        let file = EnvironmentFile(parsing: "A=1\r\nA=2\r\nB=3")
        #expect(file.values == ["A": "2", "B": "3"])
    }

    @Test("names that are not environment names are ignored, as systemd ignores them, and reported by line")
    func invalidNames() {
        let file = EnvironmentFile(parsing: "export A=1\n1X=2\nGOOD_1=3\nBAD-NAME=4\n")
        #expect(file.values == ["GOOD_1": "3"])
        #expect(file.ignored == [1, 2, 4])
    }
}
