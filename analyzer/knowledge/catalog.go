package knowledge

import (
	"errors"
	"fmt"
	"go/types"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Catalog is the data indexed for lookups by the engine. It is read-only
// once built and safe for concurrent use.
type Catalog struct {
	rules       map[string][]*Rule // pkg \x00 recv \x00 name
	pkgRules    map[string][]*Rule // whole-package rules by path
	subRules    []*Rule            // whole-package rules that cover subpackages
	messages    map[string]*Message
	types       map[string]TypeRole
	sentinels   map[string]string
	perDelivery map[string]bool
	unique      map[string]bool
	orms        map[string]*ORM
	mongo       MongoOps
	paths       map[string]bool // import paths with rules of their own (not whole-package ones) or messages: known clients
	ruled       map[string]bool // import paths with rules of their own, learnt ones too: where Lookup looks
	described   map[string]bool // import paths of the base data's rules and messages
	brokers     map[string]bool // import paths with consumer rules or message types (Broker)
	names       map[string]bool // function, method and type names with rules
	all         []*Rule
	base        Base
	extra       []Rule

	subCache sync.Map // pkg path -> []*Rule from subRules
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
)

// Default returns the catalog of the clients idemlint knows.
func Default() *Catalog {
	defaultOnce.Do(func() {
		c, err := New(base)
		if err != nil {
			panic("knowledge: " + err.Error())
		}
		defaultCat = c
	})
	return defaultCat
}

// expand returns s with its {client} template replaced by every path of
// that client.
func expand(s string) []string {
	i := strings.Index(s, "{")
	if i < 0 {
		return []string{s}
	}
	j := strings.Index(s[i:], "}")
	if j < 0 {
		return []string{s}
	}
	ps, ok := paths[s[i+1:i+j]]
	if !ok {
		return []string{s}
	}
	var out []string
	for _, p := range ps {
		out = append(out, expand(s[:i]+p+s[i+j+1:])...)
	}
	return out
}

// New builds a catalog from b and extra rules (a rules file's).
func New(b Base, extra ...Rule) (*Catalog, error) {
	c := &Catalog{
		rules: map[string][]*Rule{}, pkgRules: map[string][]*Rule{}, messages: map[string]*Message{},
		types: map[string]TypeRole{}, sentinels: map[string]string{}, perDelivery: map[string]bool{},
		unique: map[string]bool{}, orms: map[string]*ORM{}, paths: map[string]bool{}, ruled: map[string]bool{}, brokers: map[string]bool{}, names: map[string]bool{}, described: map[string]bool{},
		mongo: b.Mongo, base: b, extra: extra,
	}
	var errs []error
	for i, r := range append(append([]Rule(nil), b.Rules...), extra...) {
		for _, name := range expand(r.Name) {
			if err := c.add(r, name); err != nil {
				errs = append(errs, err)
			} else if i < len(b.Rules) && !c.all[len(c.all)-1].WholePackage() {
				c.described[c.all[len(c.all)-1].pkg] = true
			}
		}
	}
	for _, m := range b.Messages {
		for _, t := range expand(m.Type) {
			m := m
			m.Type = t
			c.messages[t] = &m
			if i := strings.LastIndex(t, "."); i > 0 && !m.Learned {
				c.paths[t[:i]] = true
				c.brokers[t[:i]] = true
				c.names[t[i+1:]] = true
				if m.Client != "rules" {
					c.described[t[:i]] = true
				}
			}
		}
	}
	for _, t := range b.Types {
		for _, n := range expand(t.Name) {
			c.types[n] = t.Role
		}
	}
	for k, v := range b.Sentinels {
		for _, n := range expand(k) {
			c.sentinels[n] = v
		}
	}
	for _, f := range b.PerDelivery {
		for _, n := range expand(f) {
			c.perDelivery[n] = true
		}
	}
	for _, u := range b.UniqueCodes {
		c.unique[u] = true
	}
	for i := range b.ORMs {
		c.orms[b.ORMs[i].Pkg] = &b.ORMs[i]
	}
	return c, errors.Join(errs...)
}

// With returns a catalog of c's data, extra rules and extra message types
// (a rules file's, flags').
func (c *Catalog) With(extra []Rule, messages []Message) (*Catalog, error) {
	if len(extra) == 0 && len(messages) == 0 {
		return c, nil
	}
	b := c.base
	b.Messages = append(append([]Message(nil), b.Messages...), messages...)
	return New(b, append(append([]Rule(nil), c.extra...), extra...)...)
}

func (c *Catalog) add(r Rule, name string) error {
	pkg, recv, fn, sub, err := parseName(name)
	if err != nil {
		if r.Pos != "" {
			return fmt.Errorf("%s: %w", r.Pos, err)
		}
		return err
	}
	x := r
	x.Name, x.pkg, x.recv, x.name, x.sub = name, pkg, recv, fn, sub
	c.all = append(c.all, &x)
	switch {
	case sub:
		c.subRules = append(c.subRules, &x)
	case fn == "...":
		c.pkgRules[pkg] = append(c.pkgRules[pkg], &x)
	default:
		k := key(pkg, recv, fn)
		c.rules[k] = append(c.rules[k], &x)
		c.ruled[pkg] = true
		c.names[fn] = true
		if !r.Learned {
			c.paths[pkg] = true
			c.brokers[pkg] = c.brokers[pkg] || r.Role.consumes()
		}
	}
	return nil
}

func key(pkg, recv, name string) string { return pkg + "\x00" + recv + "\x00" + name }

// NormPath strips a vendor prefix from an import path.
func NormPath(p string) string {
	if i := strings.LastIndex(p, "/vendor/"); i >= 0 {
		return p[i+len("/vendor/"):]
	}
	return strings.TrimPrefix(p, "vendor/")
}

// FuncKey returns the package path and receiver type name of fn ("" for a
// function; "?" for a receiver that is not a named type).
func FuncKey(fn *types.Func) (pkg, recv string) {
	if fn.Pkg() == nil {
		return "", ""
	}
	pkg = NormPath(fn.Pkg().Path())
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		t := types.Unalias(sig.Recv().Type())
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		if n, ok := t.(*types.Named); ok {
			recv = n.Obj().Name()
		} else {
			recv = "?"
		}
	}
	return pkg, recv
}

// Lookup returns the rules of fn: its own, then its package's.
func (c *Catalog) Lookup(fn *types.Func) []*Rule {
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	fn = fn.Origin()
	pkg, recv := FuncKey(fn)
	var rs []*Rule
	if c.names[fn.Name()] && c.ruled[pkg] {
		rs = c.rules[key(pkg, recv, fn.Name())]
		if recv != "" {
			rs = append(rs[:len(rs):len(rs)], c.rules[key(pkg, "*", fn.Name())]...)
		}
	}
	if pr := c.packageRules(pkg); len(pr) > 0 {
		rs = append(rs[:len(rs):len(rs)], pr...)
	}
	return rs
}

// packageRules returns the whole-package rules that cover pkg.
func (c *Catalog) packageRules(pkg string) []*Rule {
	rs := c.pkgRules[pkg]
	if len(c.subRules) == 0 {
		return rs
	}
	v, ok := c.subCache.Load(pkg)
	if !ok {
		var sub []*Rule
		for _, r := range c.subRules {
			if pkg == r.pkg || strings.HasPrefix(pkg, r.pkg+"/") {
				sub = append(sub, r)
			}
		}
		v, _ = c.subCache.LoadOrStore(pkg, sub)
	}
	if sub := v.([]*Rule); len(sub) > 0 {
		return append(rs[:len(rs):len(rs)], sub...)
	}
	return rs
}

// PackageRuled reports whether a whole-package rule (telemetry, a package
// to ignore) covers the package at path.
func (c *Catalog) PackageRuled(path string) bool { return len(c.packageRules(NormPath(path))) > 0 }

// Find returns fn's first rule of role r, nil if none.
func (c *Catalog) Find(fn *types.Func, r Role) *Rule {
	for _, x := range c.Lookup(fn) {
		if x.Role == r {
			return x
		}
	}
	return nil
}

// Has reports whether fn has a rule of role r.
func (c *Catalog) Has(fn *types.Func, r Role) bool { return c.Find(fn, r) != nil }

// ArgIndex returns the index (receiver excluded) of the argument of a call
// to fn that r's Arg names, -1 when none.
func (r *Rule) ArgIndex(fn *types.Func) int { return max(Param(fn, r.Arg), -1) }

// KeyIndex returns the index of the argument of a call to fn that r's Key
// names, -1 when none.
func (r *Rule) KeyIndex(fn *types.Func) int { return max(Param(fn, r.Key), -1) }

// Known reports whether the catalog has rules of its own (not only
// whole-package ones) or message types in the package at path.
func (c *Catalog) Known(path string) bool { return c.paths[NormPath(path)] }

// Broker reports whether the package at path is a broker client the
// catalog knows the consumer side of: it has message types or rules that
// fetch, consume, subscribe or register handlers. A package that imports
// one may be a company's wrapper of it.
func (c *Catalog) Broker(path string) bool { return c.brokers[NormPath(path)] }

// Described reports whether the package at path is a client library the
// catalog's own data describes (not a package a rules file names), or a
// remote-service SDK (SDKPackages) or a model-inference SDK (Computations):
// its code is not analysed.
func (c *Catalog) Described(path string) bool {
	return c.described[NormPath(path)] || c.sdk(path) || c.computation(path)
}

// KnownName reports whether a function, method or type of that name has a
// rule or is a message.
func (c *Catalog) KnownName(name string) bool { return c.names[name] }

// Rules returns every rule of the catalog, expanded, in a stable order.
func (c *Catalog) Rules() []*Rule {
	out := append([]*Rule(nil), c.all...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Messages returns the message types, sorted by name.
func (c *Catalog) Messages() []*Message {
	out := make([]*Message, 0, len(c.messages))
	for _, m := range c.messages {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

// Message returns the message type t is (or points to, or is a slice or
// channel of), nil when none.
func (c *Catalog) Message(t types.Type) *Message {
	for range 3 {
		switch u := types.Unalias(t).(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Slice:
			t = u.Elem()
			continue
		case *types.Chan:
			t = u.Elem()
			continue
		case *types.Named:
			return c.messages[QualifiedType(u)]
		}
		return nil
	}
	return nil
}

// MessageClient returns the client of the message type t is, "" when t is
// no message.
func (c *Catalog) MessageClient(t types.Type) string {
	if m := c.Message(t); m != nil {
		return m.Client
	}
	return ""
}

// QualifiedType returns "pkgpath.Name" of a named type, "" for others.
func QualifiedType(t types.Type) string {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return NormPath(n.Obj().Pkg().Path()) + "." + n.Obj().Name()
}

// TypeRole returns the role of t (or the type it points to), 0 if none.
func (c *Catalog) TypeRole(t types.Type) TypeRole {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	return c.types[QualifiedType(t)]
}

// Sentinel returns the class (NoRows, DupKey) of a sentinel error given by
// its qualified name, "" when it is not catalogued.
func (c *Catalog) Sentinel(name string) string { return c.sentinels[name] }

// PerDelivery reports whether a field, "pkgpath.Type.Field", changes on
// every delivery of one message.
func (c *Catalog) PerDelivery(field string) bool { return c.perDelivery[field] }

// UniqueString reports whether s is the error code of a unique violation.
func (c *Catalog) UniqueString(s string) bool { return c.unique[strconv.Quote(s)] }

// UniqueInt reports whether n is the error number of a unique violation.
func (c *Catalog) UniqueInt(n int64) bool { return c.unique[strconv.FormatInt(n, 10)] }

// Resolve returns the function or method r names in pkg (r.Package()'s
// types), nil if pkg has none of that name; for a whole-package rule, nil.
func (r *Rule) Resolve(pkg *types.Package) *types.Func {
	if r.WholePackage() || pkg == nil {
		return nil
	}
	scope := pkg.Scope()
	if r.recv == "" {
		fn, _ := scope.Lookup(r.name).(*types.Func)
		return fn
	}
	var named []*types.TypeName
	if r.recv == "*" {
		for _, n := range scope.Names() {
			if tn, ok := scope.Lookup(n).(*types.TypeName); ok {
				named = append(named, tn)
			}
		}
	} else if tn, ok := scope.Lookup(r.recv).(*types.TypeName); ok {
		named = append(named, tn)
	}
	for _, tn := range named {
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if types.IsInterface(tn.Type()) && t != tn.Type() {
				continue
			}
			for _, p := range []*types.Package{pkg, nil} {
				if sel := types.NewMethodSet(t).Lookup(p, r.name); sel != nil {
					if fn, ok := sel.Obj().(*types.Func); ok {
						return fn
					}
				}
			}
		}
	}
	return nil
}

// ORM returns the ORM whose builder package is pkg, nil if none.
func (c *Catalog) ORM(pkg string) *ORM { return c.orms[NormPath(pkg)] }

// ORMOf returns the ORM whose clause package is pkg, nil if none.
func (c *Catalog) ORMOf(clausePkg string) *ORM {
	for _, o := range c.orms {
		if o.ClausePkg == NormPath(clausePkg) {
			return o
		}
	}
	return nil
}

// RedisCommand classifies a Redis command by its name (any case): an
// effect (a repeat changes the value again), publishing, or neither.
func (c *Catalog) RedisCommand(name string) (effect, publish bool) {
	n := strings.ToUpper(name)
	return slices.Contains(c.base.RedisCommands.Effects, n), slices.Contains(c.base.RedisCommands.Publish, n)
}

// DeadLetter reports whether s, a string in a program, declares a
// dead-letter destination.
func (c *Catalog) DeadLetter(s string) bool { return slices.Contains(c.base.DeadLetters, s) }

// SQLShape returns how a call of a user's SQL-shaped interface method named
// name is read (SQLExec, SQLQuery); ok is false for other names.
func (c *Catalog) SQLShape(name string) (m Mode, ok bool) {
	m, ok = c.base.SQLShapes[name]
	return m, ok
}

// EventShapes returns the shapes of the event structs platforms decode
// events into before calling a program's function.
func (c *Catalog) EventShapes() []EventShape { return c.base.EventShapes }

// GeneratedQueries returns the shapes of the ORMs' generated query
// builders.
func (c *Catalog) GeneratedQueries() []GeneratedQuery { return c.base.GeneratedQueries }

// QueryBuilder returns the SQL builder of type t (or a pointer to it), or
// of whose chain t is a type; nil for other types.
func (c *Catalog) QueryBuilder(t types.Type) *QueryBuilder {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	q := QualifiedType(t)
	for i := range c.base.QueryBuilders {
		if qb := &c.base.QueryBuilders[i]; qb.Type == q || slices.Contains(qb.Chain, q) {
			return qb
		}
	}
	return nil
}

// RPCOption reports whether t is the type of a generated RPC client's
// call options: one of RPCOptions (grpc.CallOption), or func(*Options) of a
// package under SDKPackages (an aws-sdk-go-v2 service).
func (c *Catalog) RPCOption(t types.Type) bool {
	if sig, ok := types.Unalias(t).(*types.Signature); ok {
		return c.optionFunc(sig)
	}
	return slices.Contains(c.base.RPCOptions, QualifiedType(t))
}

// optionFunc reports whether sig is func(*Options) with Options a type of a
// package under SDKPackages.
func (c *Catalog) optionFunc(sig *types.Signature) bool {
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	p, ok := types.Unalias(sig.Params().At(0).Type()).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || n.Obj().Name() != "Options" || n.Obj().Pkg() == nil {
		return false
	}
	return c.sdk(n.Obj().Pkg().Path())
}

// sdk reports whether the package at path is under SDKPackages.
func (c *Catalog) sdk(path string) bool { return underAny(path, c.base.SDKPackages) }

// computation reports whether the package at path is a model-inference SDK
// (Computations): its calls are no effect.
func (c *Catalog) computation(path string) bool { return underAny(path, c.base.Computations) }

// underAny reports whether path is under one of prefixes: a prefix that
// ends in a slash starts it, any other is the path or a parent of it.
func underAny(path string, prefixes []string) bool {
	path = NormPath(path)
	for _, prefix := range prefixes {
		if strings.HasSuffix(prefix, "/") && strings.HasPrefix(path, prefix) ||
			path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}

// KeyField reports whether a request field's name says it carries an
// idempotency key (KeyFields).
func (c *Catalog) KeyField(name string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	n := norm(name)
	for _, k := range c.base.KeyFields {
		if norm(k) == n {
			return true
		}
	}
	return false
}

// KeyHeader reports whether an HTTP header, in canonical form, carries an
// idempotency key (KeyHeaders; an entry "*-Event-Id" matches the end of
// the name).
func (c *Catalog) KeyHeader(canonical string) bool {
	for _, h := range c.base.KeyHeaders {
		if suffix, ok := strings.CutPrefix(h, "*"); ok && strings.HasSuffix(canonical, suffix) || h == canonical {
			return true
		}
	}
	return false
}

// RemoteEffect reports whether a remote method, by its name, is an
// effect: not a read (GetBalance, ListOrders: ReadVerbs) nor an overwrite
// (SetState, PutObject, DeleteOrder: OverwriteVerbs), each verb followed
// by the end of the name or an upper-case letter.
func (c *Catalog) RemoteEffect(name string) bool {
	return !c.ReadName(name) && !HasVerb(name, c.base.OverwriteVerbs)
}

// OverwriteName reports whether a remote method's name says it overwrites
// (PutObject, DeleteOrder, SetState: OverwriteVerbs) and does not read: a
// repeat leaves the same state, but a lost message loses the write.
func (c *Catalog) OverwriteName(name string) bool {
	return HasVerb(name, c.base.OverwriteVerbs) && !c.ReadName(name)
}

// ReadName reports whether a function's name says it only reads or
// computes: it starts with one of ReadVerbs (GetBlock, FetchRates) or
// ComputeVerbs (EmbedChunks, TranslateText) and joins no second verb to it
// (GetOrCreateUser, FetchAndLock, ExtractAndSave).
func (c *Catalog) ReadName(name string) bool {
	return (HasVerb(name, c.base.ReadVerbs) || HasVerb(name, c.base.ComputeVerbs)) && !joinsVerb(name)
}

// ComputeURL reports whether u, a URL or a constant part of one (a base
// URL is often joined on), ends in one of ComputeEndpoints, before any
// query: a model inference request.
func (c *Catalog) ComputeURL(u string) bool {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	for _, e := range c.base.ComputeEndpoints {
		if strings.HasSuffix(u, e) {
			return true
		}
	}
	return false
}

// CredentialName reports whether a function's name says it obtains a
// credential: it logs in (Login, SignIn, Authenticate: CredentialVerbs) or
// gets a token (RefreshAccessToken, AccessTokenFor, postToken: a
// CredentialWords word, not after a first word of CredentialWriteVerbs
// such as SaveToken or SendToken).
func (c *Catalog) CredentialName(name string) bool {
	first := strings.ToLower(firstWord(name))
	if slices.Contains(c.base.CredentialVerbs, first) {
		return true
	}
	if slices.Contains(c.base.CredentialWriteVerbs, first) {
		return false
	}
	return slices.ContainsFunc(c.base.CredentialWords, func(w string) bool { return strings.Contains(name, w) })
}

// firstWord returns name up to its second upper-case letter (postToken:
// post; RefreshAccessToken: Refresh; SignIn: Sign).
func firstWord(name string) string {
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			if strings.EqualFold(name[:i], "sign") || strings.EqualFold(name[:i], "log") {
				continue // SignIn, LogIn, LogOn: one verb
			}
			return name[:i]
		}
	}
	return name
}

// joinsVerb reports whether name joins two verbs with Or or And, each
// followed by an upper-case letter (GetOrCreate; not GetOrders).
func joinsVerb(name string) bool {
	for _, w := range []string{"Or", "And"} {
		for rest := name; ; {
			i := strings.Index(rest, w)
			if i < 0 {
				break
			}
			rest = rest[i+len(w):]
			if i > 0 && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
				return true
			}
		}
	}
	return false
}

// HasVerb reports whether name starts with one of verbs followed by the
// end of the name or an upper-case letter (AddPoints, Add; not Address).
func HasVerb(name string, verbs []string) bool {
	for _, v := range verbs {
		if rest, ok := strings.CutPrefix(name, v); ok && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z') {
			return true
		}
	}
	return false
}

// PublishTable reports whether a table (schema.name) is an outbox or a
// queue by its name.
func (c *Catalog) PublishTable(table string) bool {
	t := strings.ToLower(table)
	if i := strings.LastIndex(t, "."); i >= 0 {
		t = t[i+1:]
	}
	for _, w := range c.base.PublishTables {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// BookkeepingTable reports whether a table (schema.name) records what
// happened (an audit trail, a log of events or status changes) by its
// name: writes to it are no business effect.
func (c *Catalog) BookkeepingTable(table string) bool {
	t := strings.ToLower(table)
	if i := strings.LastIndex(t, "."); i >= 0 {
		t = t[i+1:]
	}
	return matchAny(c.base.BookkeepingTables, strings.Trim(t, "`\"[]"))
}

// BookkeepingColumn reports whether a column records how its row's thing
// is doing (health, a heartbeat, when it was last checked or touched) by
// its name.
func (c *Catalog) BookkeepingColumn(column string) bool {
	return matchAny(c.base.BookkeepingColumns, strings.Trim(strings.ToLower(column), "`\"[]"))
}

// matchAny reports whether name matches one of patterns (path.Match).
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// MongoOperators returns the update operators of document stores.
func (c *Catalog) MongoOperators() MongoOps { return c.mongo }

// NoReturn reports functions that never return (os.Exit, log.Fatal, and
// any loggers' Fatal methods without results).
func (c *Catalog) NoReturn(fn *types.Func) bool {
	if c.Has(fn, NoReturn) {
		return true
	}
	switch fn.Name() {
	case "Fatal", "Fatalf", "Fatalln", "Fatalw":
		sig, ok := fn.Type().(*types.Signature)
		return ok && sig.Results().Len() == 0
	}
	return false
}
