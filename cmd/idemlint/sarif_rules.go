package main

import (
	"strings"
	"unicode"

	"github.com/idemkit/idem/analyzer"
)

// sarifLevel is the SARIF level of a code's findings: error for IDEM001 …
// IDEM007, warning for IDEM000 (a malformed directive breaks no handler,
// but the suppression it meant does not apply).
func sarifLevel(c analyzer.Code) string {
	if c == analyzer.IDEM000 {
		return "warning"
	}
	return "error"
}

// sarifRules returns the rules of SARIF output, one per diagnostic code in
// code order, from the analyzer's documentation of the codes
// (analyzer.Docs): the title is the short description, the text the full
// one, the bad and good examples the help, the code's page the help URI.
func sarifRules() []sarifRule {
	var rules []sarifRule
	for _, d := range analyzer.Docs() {
		text := unwrap(d.Text)
		rules = append(rules, sarifRule{
			ID:               string(d.Code),
			Name:             ruleName(d.Title),
			ShortDescription: sarifText{Text: d.Title},
			FullDescription:  sarifText{Text: text},
			Help: sarifHelp{
				Text:     text + " Suppress one finding, with a reason: //idem:ignore " + string(d.Code) + " <reason>.",
				Markdown: text + "\n\nBad:\n\n```go\n" + d.Bad + "```\n\nGood:\n\n```go\n" + d.Good + "```\n\nSuppress one finding, with a reason, on its line or the line above: `//idem:ignore " + string(d.Code) + " <reason>`.",
			},
			HelpURI:              d.Code.URL(),
			DefaultConfiguration: sarifConfig{Level: sarifLevel(d.Code)},
		})
	}
	return rules
}

// ruleName makes a PascalCase name of a code's title (SARIF's
// reportingDescriptor.name): its words, without what is in parentheses or
// punctuation. "ack on a failure path" is AckOnAFailurePath.
func ruleName(title string) string {
	var b strings.Builder
	depth := 0
	upper := true
	for _, r := range title {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth > 0:
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if upper {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	return b.String()
}

// unwrap joins the lines of each paragraph of a wrapped text, and trims it.
func unwrap(s string) string {
	paras := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}
