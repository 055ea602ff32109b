package analyzer

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/idemkit/idem/analyzer/knowledge"
	"github.com/idemkit/idem/analyzer/rules"
)

// Config is the settings of a run: what idemlint's flags say. Functions a
// team names here or in its rules file extend the catalog.
type Config struct {
	// Effects, Dedup and Acks name the team's own functions and methods by
	// qualified name ((*example.com/repo.Repo).Save, example.com/sms.Send);
	// a Dedup name ending in =dup reports a duplicate when its bool result
	// is true.
	Effects, Dedup, Acks []string
	Publish              bool   // publishing to a broker is an effect
	Strict               bool   // also report check-then-act dedup (IDEM005)
	Iface                string // interface policy: "annotated" (the default) or "verbs"
	// Rules is the rules file: "" looks for idemlint.yaml at the root of
	// the module of the code analysed, "off" reads none.
	Rules string
	// Codes are the diagnostic codes to report (IDEM001 …); empty: all.
	Codes []string
}

// settings is a Config bound to flags, and the configs it has built.
type settings struct {
	effects, dedup, acks, iface, rules, codes string
	publish, strict                           bool

	mu    sync.Mutex
	built map[string]*config // by the flag values and the rules file
}

func newSettings(c Config) *settings {
	st := &settings{
		effects: strings.Join(c.Effects, ","), dedup: strings.Join(c.Dedup, ","), acks: strings.Join(c.Acks, ","),
		iface: c.Iface, rules: c.Rules, codes: strings.Join(c.Codes, ","), publish: c.Publish, strict: c.Strict,
		built: map[string]*config{},
	}
	if st.iface == "" {
		st.iface = "annotated"
	}
	return st
}

// Config returns the settings the flags hold now.
func (st *settings) Config() Config {
	return Config{Effects: parseList(st.effects), Dedup: parseList(st.dedup), Acks: parseList(st.acks),
		Publish: st.publish, Strict: st.strict, Iface: st.iface, Rules: st.rules, Codes: parseList(st.codes)}
}

func (st *settings) flags() flag.FlagSet {
	var fs flag.FlagSet
	fs.StringVar(&st.effects, "effects", st.effects, "comma-separated functions or methods that are non-idempotent effects, e.g. `(*example.com/repo.Repo).Save,example.com/sms.Send`")
	fs.StringVar(&st.dedup, "dedup", st.dedup, "comma-separated functions or methods that are dedup checks (a bool result: true means fresh; suffix =dup when true means duplicate)")
	fs.StringVar(&st.acks, "acks", st.acks, "comma-separated functions or methods that acknowledge a message")
	fs.BoolVar(&st.publish, "publish", st.publish, "treat publishing to a broker as an effect")
	fs.BoolVar(&st.strict, "strict", st.strict, "also report check-then-act dedup (a lookup followed by a write, IDEM005)")
	fs.StringVar(&st.iface, "iface", st.iface, "policy for calls through interfaces outside the catalog: annotated (only //idem:effect and -effects) or verbs (also methods named like writes: Create, Insert, Add, Incr, Send, Charge …; not Save or Put, which usually overwrite)")
	fs.StringVar(&st.rules, "rules", st.rules, "the rules file declaring the team's own effects, dedup checks, acks, message types, handler registration helpers and functions to ignore (default: "+rules.FileName+" at the module root, if there is one; off: none)")
	fs.StringVar(&st.codes, "codes", st.codes, "comma-separated diagnostic codes to report, e.g. IDEM001,IDEM002 (default: all)")
	fs.Bool("vetx-report", false, "internal, set by the standalone driver of cmd/idemlint: also report findings in packages go vet analyses only for facts (VetxOnly)")
	return fs
}

// config is what a run uses: the catalog extended by flags and the rules
// file, and the switches.
type config struct {
	cat     *knowledge.Catalog
	extra   bool // the catalog has a team's own rules
	publish bool
	strict  bool
	verbs   bool
	codes   map[Code]bool // nil: all
}

// report reports whether findings of code are wanted.
func (c *config) report(code Code) bool {
	return c.codes == nil || c.codes[code] || code == IDEM000
}

func parseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// config returns the config of a run over code in dir (where the rules
// file is looked for), building it once per flag values and rules file.
func (st *settings) config(dir string) (*config, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	path := st.rules
	switch path {
	case "off":
		path = ""
	case "":
		path = rules.Find(dir)
	}
	key := strings.Join([]string{st.effects, st.dedup, st.acks, st.iface, st.codes, fmt.Sprint(st.publish, st.strict), path}, "\x00")
	if c, ok := st.built[key]; ok {
		return c, nil
	}
	if st.iface != "annotated" && st.iface != "verbs" {
		return nil, fmt.Errorf("-iface: want annotated or verbs, not %q", st.iface)
	}
	c := &config{publish: st.publish, strict: st.strict, verbs: st.iface == "verbs"}
	if cs := parseList(st.codes); len(cs) > 0 {
		c.codes = map[Code]bool{}
		for _, code := range cs {
			if !Code(code).known() {
				return nil, fmt.Errorf("-codes: unknown code %q (want IDEM000 … IDEM007)", code)
			}
			c.codes[Code(code)] = true
		}
	}
	var extra []knowledge.Rule
	for _, n := range parseList(st.effects) {
		extra = append(extra, knowledge.Rule{Name: n, Role: knowledge.Effect, Kind: knowledge.Custom, Client: "flags", Pos: "-effects"})
	}
	for _, n := range parseList(st.dedup) {
		r := knowledge.Rule{Name: n, Role: knowledge.Dedup, Client: "flags", Pos: "-dedup"}
		if name, ok := strings.CutSuffix(n, "=dup"); ok {
			r.Name, r.Fresh = name, "duplicate"
		}
		extra = append(extra, r)
	}
	for _, n := range parseList(st.acks) {
		extra = append(extra, knowledge.Rule{Name: n, Role: knowledge.Ack, Client: "flags", Pos: "-acks"})
	}
	var msgs []knowledge.Message
	if path != "" {
		f, err := rules.Load(path)
		if err != nil {
			return nil, err
		}
		extra = append(extra, f.Rules...)
		msgs = f.Messages
	}
	cat, err := knowledge.Default().With(extra, msgs)
	if err != nil {
		return nil, err
	}
	c.cat, c.extra = cat, len(extra)+len(msgs) > 0
	st.built[key] = c
	return c, nil
}

// userRules returns the rules a team added (flags, rules file), in order.
func (c *config) userRules() []*knowledge.Rule {
	var out []*knowledge.Rule
	for _, r := range c.cat.Rules() {
		if r.Client == "flags" || r.Client == "rules" {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *knowledge.Rule) int { return strings.Compare(a.Pos, b.Pos) })
	return out
}
