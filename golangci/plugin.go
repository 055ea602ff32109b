// Package golangci registers idemlint as a golangci-lint v2 module plugin
// (github.com/golangci/plugin-module-register) under the name "idemlint".
//
// Build a custom golangci-lint with it (golangci-lint custom, driven by a
// .custom-gcl.yml) and enable it in .golangci.yml as a linter of type
// "module"; see README.md in this directory.
//
// Settings (all optional) are those of the standalone command's flags:
//
//	rules:   path/idemlint.yaml   -rules (relative to the working directory; off: none)
//	codes:   [IDEM001, ...]       -codes (report only these codes)
//	strict:  true                 -strict (report check-then-act dedup, IDEM005)
//	publish: true                 -publish (publishing to a broker is an effect)
//	effects: [pkg.Func, ...]      -effects
//	dedup:   [pkg.Func=dup, ...]  -dedup
//	acks:    [pkg.Func, ...]      -acks
//	iface:   annotated | verbs    -iface
//
// Each plugin instance (each New) builds an analyzer of its own with
// analyzer.New, so two instances with different settings in one process do
// not share them, and the analyzer's process-wide flags
// (analyzer.Analyzer) are left alone. New reports what it can check up
// front: an unknown setting or code, a bad iface, and a rules file that
// cannot be read or parsed (with its file, line and column). Unlike the
// standalone command's whole-program run, the plugin does not report a
// name of the rules file that the program does not define: it sees one
// package at a time, and such a name may be in a package it is not shown.
package golangci

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idem/analyzer"
	"github.com/idemkit/idem/analyzer/rules"
)

func init() {
	register.Plugin("idemlint", New)
}

// Settings are the plugin's settings in .golangci.yml
// (linters.settings.custom.idemlint.settings).
type Settings struct {
	Rules   string   `json:"rules"`
	Codes   []string `json:"codes"`
	Strict  bool     `json:"strict"`
	Publish bool     `json:"publish"`
	Effects []string `json:"effects"`
	Dedup   []string `json:"dedup"`
	Acks    []string `json:"acks"`
	Iface   string   `json:"iface"`
}

// Plugin is the idemlint linter plugin: one analyzer with its settings.
type Plugin struct {
	settings Settings
	analyzer *analysis.Analyzer
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New decodes the settings, checks them and builds the plugin's own
// analyzer. Unknown settings and codes, a bad iface, and a rules file that
// does not load are errors.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("idemlint: %w", err)
	}
	cfg, err := s.config()
	if err != nil {
		return nil, fmt.Errorf("idemlint: %w", err)
	}
	return &Plugin{settings: s, analyzer: analyzer.New(cfg)}, nil
}

// config checks the settings and turns them into the analyzer's Config.
func (s Settings) config() (analyzer.Config, error) {
	cfg := analyzer.Config{
		Effects: s.Effects, Dedup: s.Dedup, Acks: s.Acks,
		Publish: s.Publish, Strict: s.Strict, Iface: s.Iface, Codes: s.Codes,
	}
	switch s.Iface {
	case "", "annotated", "verbs":
	default:
		return cfg, fmt.Errorf("iface: want annotated or verbs, not %q", s.Iface)
	}
	var known []string
	for _, d := range analyzer.Docs() {
		known = append(known, string(d.Code))
	}
	for _, c := range s.Codes {
		if !slices.Contains(known, c) {
			return cfg, fmt.Errorf("codes: unknown code %q (want one of %v)", c, known)
		}
	}
	switch s.Rules {
	case "", "off":
		cfg.Rules = s.Rules
	default:
		// Read now, so that a broken file fails the run before any
		// package is analysed, positioned (file:line:col).
		if _, err := rules.Load(s.Rules); err != nil {
			return cfg, fmt.Errorf("rules: %w", err)
		}
		abs, err := filepath.Abs(s.Rules)
		if err != nil {
			return cfg, fmt.Errorf("rules: %w", err)
		}
		cfg.Rules = abs
	}
	return cfg, nil
}

// BuildAnalyzers returns the plugin's idemlint analyzer.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{p.analyzer}, nil
}

// GetLoadMode asks for type information: idemlint works on types and SSA.
func (*Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
