// Package golangci registers idemlint as a golangci-lint v2 module plugin
// (github.com/golangci/plugin-module-register) under the name "idemlint".
//
// Build a custom golangci-lint with it (golangci-lint custom, driven by a
// .custom-gcl.yml) and enable it in .golangci.yml as a linter of type
// "module"; see README.md in this directory.
//
// Settings (all optional) map onto the analyzer's flags:
//
//	strict:  true                 -strict (report check-then-act dedup, IDEM005)
//	publish: true                 -publish (publishing to a broker is an effect)
//	effects: [pkg.Func, ...]      -effects
//	dedup:   [pkg.Func=dup, ...]  -dedup
//	acks:    [pkg.Func, ...]      -acks
//	iface:   annotated | verbs    -iface
//
// The analyzer keeps its flag values in package variables, so the settings
// are process-wide: New sets every flag (unset settings to their defaults),
// and the last New wins. golangci-lint builds a plugin once per run.
package golangci

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idem/analyzer"
)

func init() {
	register.Plugin("idemlint", New)
}

// Settings are the plugin's settings in .golangci.yml
// (linters.settings.custom.idemlint.settings).
type Settings struct {
	Strict  bool     `json:"strict"`
	Publish bool     `json:"publish"`
	Effects []string `json:"effects"`
	Dedup   []string `json:"dedup"`
	Acks    []string `json:"acks"`
	Iface   string   `json:"iface"`
}

// Plugin is the idemlint linter plugin.
type Plugin struct {
	settings Settings
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New decodes the settings and applies them to the analyzer's flags.
// Unknown settings are an error.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("idemlint: %w", err)
	}
	if s.Iface == "" {
		s.Iface = "annotated"
	}
	if s.Iface != "annotated" && s.Iface != "verbs" {
		return nil, fmt.Errorf("idemlint: iface: want annotated or verbs, not %q", s.Iface)
	}
	flags := []struct{ name, value string }{
		{"strict", strconv.FormatBool(s.Strict)},
		{"publish", strconv.FormatBool(s.Publish)},
		{"effects", strings.Join(s.Effects, ",")},
		{"dedup", strings.Join(s.Dedup, ",")},
		{"acks", strings.Join(s.Acks, ",")},
		{"iface", s.Iface},
	}
	for _, f := range flags {
		if err := analyzer.Analyzer.Flags.Set(f.name, f.value); err != nil {
			return nil, fmt.Errorf("idemlint: setting %s: %w", f.name, err)
		}
	}
	return &Plugin{settings: s}, nil
}

// BuildAnalyzers returns the idemlint analyzer.
func (*Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{analyzer.Analyzer}, nil
}

// GetLoadMode asks for type information: idemlint works on types and SSA.
func (*Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
