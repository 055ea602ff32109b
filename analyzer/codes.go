package analyzer

import (
	"fmt"
	"strings"
)

// Code is a diagnostic code. Every finding's message ends with its code,
// and its Category is the code.
type Code string

// The codes idemlint reports.
const (
	IDEM000 Code = "IDEM000" // malformed //idem: directive
	IDEM001 Code = "IDEM001" // effect with no dedup check guarding it
	IDEM002 Code = "IDEM002" // ack before the effect
	IDEM003 Code = "IDEM003" // ack on a failure path
	IDEM004 Code = "IDEM004" // dedup check whose result decides nothing
	IDEM005 Code = "IDEM005" // check-then-act dedup (-strict)
	IDEM006 Code = "IDEM006" // dedup record and effect in different transactions
	IDEM007 Code = "IDEM007" // auto-ack consumer with effects
)

// CodeDoc documents a code: what it finds and why it matters, with a bad
// and a good example. Each code's documentation lives beside the rule that
// reports it (idemNNN.go); docs/idemlint is generated from it.
type CodeDoc struct {
	Code  Code
	Title string
	Text  string // what the code finds, and what a crash or a redelivery then does
	Bad   string // Go code that the code reports
	Good  string // the same code, fixed
}

// Docs returns the documentation of every code, in order.
func Docs() []CodeDoc {
	return []CodeDoc{doc000, doc001, doc002, doc003, doc004, doc005, doc006, doc007}
}

// DocsURL is where the codes' documentation pages live.
const DocsURL = "https://github.com/idemkit/idem/blob/main/docs/idemlint/"

// URL returns the documentation page of the code.
func (c Code) URL() string { return DocsURL + string(c) + ".md" }

// known reports whether c is one of the codes.
func (c Code) known() bool {
	for _, d := range Docs() {
		if d.Code == c {
			return true
		}
	}
	return false
}

// docPage renders a code's documentation page (docs/idemlint/IDEMnnn.md).
func docPage(d CodeDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", d.Code, d.Title)
	b.WriteString(d.Text)
	b.WriteString("\nBad:\n\n```go\n")
	b.WriteString(d.Bad)
	b.WriteString("```\n\nGood:\n\n```go\n")
	b.WriteString(d.Good)
	fmt.Fprintf(&b, "```\n\nSuppress one finding, with a reason, on its line or the line above:\n`//idem:ignore %s <reason>`. All codes: [README](README.md).\n", d.Code)
	return b.String()
}

// docsIndex renders docs/idemlint/README.md, the list of codes.
func docsIndex() string {
	var b strings.Builder
	b.WriteString("# idemlint's diagnostics\n\n")
	b.WriteString("Each finding ends with its code, and links here (the URL of a finding in\n-json and SARIF output). These pages are generated from the analyzer's\nsource (analyzer/idemNNN.go); do not edit them by hand.\n\n")
	b.WriteString("| code | finds |\n|------|-------|\n")
	for _, d := range Docs() {
		fmt.Fprintf(&b, "| [%s](%s.md) | %s |\n", d.Code, d.Code, d.Title)
	}
	return b.String()
}
