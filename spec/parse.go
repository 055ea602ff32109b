package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idem/spec/modfs"
)

// Load reads the spec file at path, validates it (Parse) and resolves any
// message.type (Resolve). Problems in the spec are returned as an
// ErrorList; a file that cannot be read gives an *fs.PathError. The file is
// read as package modfs reads: a regular file of at most modfs.MaxSpecSize
// bytes, neither it nor a folder between its module's root and it a
// symbolic link.
func Load(path string) (*Spec, error) {
	data, err := modfs.ReadFileAt(path, modfs.MaxSpecSize)
	if err != nil {
		return nil, err
	}
	s, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if err := Resolve(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Parse validates the spec in data and returns it with defaults applied.
// name is the spec's path: positions in errors use it as given, Spec.File
// and Spec.Dir come from it, and output and migrations.dir are checked
// against the module that encloses its folder (the nearest go.mod above it;
// without one, against the folder itself) — the only file-system access.
//
// Parse reads version first: a spec without it, or of another version, gets
// that single error. Otherwise every problem is reported, each at its own
// node, as an ErrorList sorted by position. Parse does not load Go packages:
// a message.type is checked for its form only, and Resolve (which Load
// calls) does the rest.
func Parse(name string, data []byte) (*Spec, error) {
	p := &parser{file: name}
	if len(data) > modfs.MaxSpecSize {
		return nil, ErrorList{{Pos: Position{File: name, Line: 1, Col: 1}, Msg: "the spec is larger than 1 MiB"}}
	}
	s := p.parse(data)
	if len(p.errs) > 0 {
		return nil, p.result()
	}
	return s, nil
}

var (
	topFields       = []string{"version", "package", "output", "sql_package", "dialect", "table", "migrations", "retention", "consumers"}
	migrationFields = []string{"dir", "format", "version", "partition"}
	consumerFields  = []string{"name", "topic", "message", "key", "key_version", "fingerprint", "effect", "store", "lease", "delivery", "on_error", "retention", "hash_tag"}
	messageFields   = []string{"fields", "type"}

	effects     = []string{EffectSQL, EffectRedis, EffectExternal}
	stores      = []string{StoreSQL, StoreRedis}
	deliveries  = []string{DeliveryAtLeastOnce, DeliveryAtMostOnce}
	onErrors    = []string{OnErrorRelease, OnErrorKeep}
	sqlPackages = []string{SQLPackageDatabaseSQL, SQLPackagePgx}
	dialects    = []string{DialectPostgres, DialectMySQL, DialectSQLite}
	formats     = []string{FormatGolangMigrate, FormatGoose, FormatPlain}
	partitions  = []string{PartitionNone, PartitionDaily}
	fieldTypes  = []string{TypeString, TypeInt, TypeInt32, TypeInt64, TypeUint32, TypeUint64, TypeBool, TypeFloat64, TypeTime, TypeBytes, TypeUUID}
)

// reservedFieldNames are the methods the generator defines on message
// structs; a field with one of these Go names would not compile.
var reservedFieldNames = []string{"IdempotencyKey", "Fingerprint", "UnmarshalJSON", "MarshalJSON", "Validate"}

// isKeyable reports whether a field type may be part of a key.
func isKeyable(typ string) bool { return typ != TypeFloat64 && typ != TypeBytes }

// consumerInfo keeps the nodes of a consumer needed by checks across
// settings and consumers.
type consumerInfo struct {
	name      *yaml.Node // value of name, nil when missing or invalid
	lease     *yaml.Node // value of lease, nil when defaulted
	retention *yaml.Node // value of retention, nil when not set
	badTiming bool       // lease or retention is set but invalid: not compared
}

func (p *parser) parse(data []byte) *Spec {
	root := p.document(data)
	if root == nil || !p.version(root) {
		return nil
	}
	s := &Spec{
		Version:    Version,
		Output:     DefaultOutput,
		SQLPackage: DefaultSQLPackage,
		Table:      DefaultTable,
		Migrations: Migrations{Dir: DefaultMigrationsDir, Format: DefaultMigrationsFormat, Version: DefaultMigrationsVersion},
		Retention:  DefaultRetention,
		File:       p.file,
		Dir:        filepath.Dir(p.file),
	}
	m, _ := p.mapping(root, "", topFields)

	if e, ok := m.get("package"); ok {
		if v, ok := p.str(e.val, "package"); ok {
			s.Package = v
			p.check(e.val, "package", badPackage(v))
		}
	} else {
		p.missing(m, "package")
	}
	if e, ok := m.get("output"); ok {
		if v, ok := p.str(e.val, "output"); ok {
			s.Output = v
			p.checkDir(deref(e.val), "output", v)
		}
	}
	if e, ok := m.get("sql_package"); ok {
		if v, ok := p.oneOf(e.val, "sql_package", "sql_package", sqlPackages...); ok {
			s.SQLPackage = v
		}
	}
	dialectNode := (*yaml.Node)(nil)
	dialectSet := false
	if e, ok := m.get("dialect"); ok {
		dialectSet = true
		if v, ok := p.oneOf(e.val, "dialect", "dialect", dialects...); ok {
			s.Dialect = v
			dialectNode = deref(e.val)
		}
	}
	if e, ok := m.get("table"); ok {
		if v, ok := p.str(e.val, "table"); ok {
			s.Table = v
			p.check(e.val, "table", badTable(v))
		}
	}
	if e, ok := m.get("migrations"); ok {
		p.migrations(e.val, &s.Migrations)
	}
	retentionBad := false
	if e, ok := m.get("retention"); ok {
		if d, ok := p.durationAtLeast(e.val, "retention", MinRetention, "h"); ok {
			s.Retention = d
		} else {
			retentionBad = true
		}
	}

	var infos []consumerInfo
	if e, ok := m.get("consumers"); ok {
		if items, ok := p.sequence(e.val, "consumers"); ok {
			if len(items) == 0 {
				p.errorf(deref(e.val), "consumers", "list at least one consumer")
			}
			for i, n := range items {
				if p.exhausted {
					break
				}
				c, info := p.consumer(n, fmt.Sprintf("consumers[%d]", i))
				s.Consumers = append(s.Consumers, c)
				infos = append(infos, info)
			}
		}
	} else {
		p.missing(m, "consumers")
	}

	p.checkNames(s, infos)
	p.checkDialect(s, m, dialectSet, dialectNode)
	if s.Migrations.Partition == PartitionDaily && dialectSet && s.Dialect != DialectPostgres && p.partitionNode != nil {
		p.errorf(p.partitionNode, "migrations.partition", "daily partitions need dialect postgres, not %s", s.Dialect)
	}
	p.checkLeases(s, infos, retentionBad)
	return s
}

// storesInSQL says why a consumer keeps its dedup records in SQL, or "".
func storesInSQL(c Consumer) string {
	switch {
	case c.Effect == EffectSQL:
		return "effect sql"
	case c.Effect == EffectExternal && c.Store == StoreSQL:
		return "effect external with store sql"
	}
	return ""
}

// checkDialect requires a dialect when a consumer keeps its records in SQL
// or the SQL package is pgx, which works only with PostgreSQL.
func (p *parser) checkDialect(s *Spec, root mapping, dialectSet bool, dialectNode *yaml.Node) {
	if dialectSet {
		if s.SQLPackage == SQLPackagePgx && dialectNode != nil && s.Dialect != DialectPostgres {
			p.errorf(dialectNode, "dialect", "sql_package pgx/v5 works only with dialect postgres")
		}
		return
	}
	if s.SQLPackage == SQLPackagePgx {
		p.errorf(root.node, "", "missing required field \"dialect\" (sql_package pgx/v5 needs dialect: postgres)")
		return
	}
	for i, c := range s.Consumers {
		if why := storesInSQL(c); why != "" {
			p.errorf(root.node, "", "missing required field \"dialect\" (consumers[%d] %q has %s)", i, c.Name, why)
			return
		}
	}
}

// checkLeases requires the lease of every external consumer to be shorter
// than its retention. Only a lease the spec sets can fail: the default lease
// (30s) is below the minimum retention (1m).
func (p *parser) checkLeases(s *Spec, infos []consumerInfo, retentionBad bool) {
	for i, c := range s.Consumers {
		info := infos[i]
		if c.Effect != EffectExternal || info.badTiming || info.lease == nil || retentionBad && c.Retention == 0 {
			continue
		}
		retention := c.Retention
		if retention == 0 {
			retention = s.Retention
		}
		if c.Lease >= retention {
			p.errorf(info.lease, fmt.Sprintf("consumers[%d].lease", i), "lease %s must be shorter than the retention (%s)", fmtDuration(c.Lease), fmtDuration(retention))
		}
	}
}

// fmtDuration prints a duration without the "0m0s" tails of
// time.Duration.String ("168h", "1h30m", "30s").
func fmtDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// version checks the version field first: without a supported version the
// rest of the spec cannot be read.
func (p *parser) version(root *yaml.Node) bool {
	if root.Kind != yaml.MappingNode {
		p.expected(root, "", "a mapping")
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := deref(root.Content[i])
		if k.Kind != yaml.ScalarNode || k.Value != "version" || k.ShortTag() == "!!merge" {
			continue
		}
		v, ok := p.integer(root.Content[i+1], "version")
		if !ok {
			return false
		}
		if v != Version {
			p.errorf(deref(root.Content[i+1]), "version", "unsupported version %d (this idem reads version %d)", v, Version)
			return false
		}
		return true
	}
	p.errorf(root, "", "missing required field \"version\" (add version: %d)", Version)
	return false
}

func (p *parser) migrations(n *yaml.Node, mig *Migrations) {
	m, ok := p.mapping(n, "migrations", migrationFields)
	if !ok {
		return
	}
	if e, ok := m.get("dir"); ok {
		if v, ok := p.str(e.val, "migrations.dir"); ok {
			mig.Dir = v
			p.checkDir(deref(e.val), "migrations.dir", v)
		}
	}
	if e, ok := m.get("format"); ok {
		if v, ok := p.oneOf(e.val, "migrations.format", "migrations format", formats...); ok {
			mig.Format = v
		}
	}
	if e, ok := m.get("partition"); ok {
		if v, ok := p.oneOf(e.val, "migrations.partition", "partitioning", partitions...); ok {
			mig.Partition = v
			p.partitionNode = deref(e.val)
		}
	}
	if e, ok := m.get("version"); ok {
		if v, ok := p.integer(e.val, "migrations.version"); ok {
			mig.Version = v
			switch {
			case v < 1:
				p.errorf(deref(e.val), "migrations.version", "must be at least 1, got %d", v)
			case v > maxMigrationVersion:
				p.errorf(deref(e.val), "migrations.version", "must be at most %d, got %d", maxMigrationVersion, v)
			}
		}
	}
}

// check reports msg, when not empty, at the value n of the setting path.
func (p *parser) check(n *yaml.Node, path, msg string) bool {
	if msg != "" {
		p.errorf(deref(n), path, "%s", msg)
		return false
	}
	return true
}

// checkDir reports a folder setting that is not a relative path of plain
// names, leaves the module, or passes through a link.
func (p *parser) checkDir(n *yaml.Node, where, dir string) {
	if !p.check(n, where, badFolder(dir)) {
		return
	}
	root, specDir, inModule, err := p.boundary()
	if err != nil {
		p.errorf(n, where, "cannot check %q: %v", dir, err)
		return
	}
	target := filepath.Join(specDir, filepath.FromSlash(dir))
	rel, err := filepath.Rel(root, target)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p.checkFolder(n, where, dir)
		return
	}
	if !inModule {
		p.errorf(n, where, "%q is outside the spec's folder (there is no go.mod above it)", dir)
		return
	}
	up, _ := filepath.Rel(specDir, root)
	p.errorf(n, where, "%q is outside the module (its go.mod is in %s)", dir, filepath.ToSlash(up))
}

// checkFolder reports a folder setting, inside the module, that is a file
// or passes through a symbolic link: generate would write wherever the link
// points, and remove stale files there.
func (p *parser) checkFolder(n *yaml.Node, where, dir string) {
	t, err := modfs.Open(filepath.Dir(p.file))
	if errors.Is(err, fs.ErrNotExist) {
		return // nothing exists yet, so nothing is a link
	}
	if err == nil {
		defer t.Close()
		err = t.CheckFolder(path.Clean(dir))
	}
	err = modfs.Reason(err)
	switch {
	case err == nil:
	case errors.Is(err, modfs.ErrLink):
		p.errorf(n, where, "%q: %v: generated files go only into real folders of the module", dir, err)
	default:
		p.errorf(n, where, "%q: %v", dir, err)
	}
}

// boundary returns the folder generated files must stay in: the root of the
// module enclosing the spec, or the spec's folder when there is no go.mod.
func (p *parser) boundary() (root, specDir string, inModule bool, err error) {
	if p.specDirAbs == "" && p.boundaryErr == nil {
		p.specDirAbs, p.boundaryErr = filepath.Abs(filepath.Dir(p.file))
		if p.boundaryErr == nil {
			p.boundaryDir, p.inModule, p.boundaryErr = modfs.Root(p.specDirAbs)
		}
	}
	return p.boundaryDir, p.specDirAbs, p.inModule, p.boundaryErr
}

func (p *parser) consumer(n *yaml.Node, path string) (Consumer, consumerInfo) {
	var c Consumer
	var info consumerInfo
	m, ok := p.mapping(n, path, consumerFields)
	if !ok {
		return c, info
	}
	c.Pos = p.pos(m.node)
	c.KeyVersion = DefaultKeyVersion

	if e, ok := m.get("name"); ok {
		if v, ok := p.str(e.val, join(path, "name")); ok {
			c.Name = v
			if p.check(e.val, join(path, "name"), badConsumerName(v)) {
				info.name = deref(e.val)
			}
		}
	} else {
		p.missing(m, "name")
	}
	if e, ok := m.get("topic"); ok {
		if v, ok := p.str(e.val, join(path, "topic")); ok {
			c.Topic = v
			p.check(e.val, join(path, "topic"), badTopic(v))
		}
	}
	declared := false // message fields are declared and valid enough to check names against
	if e, ok := m.get("message"); ok {
		c.Message, declared = p.message(e.val, join(path, "message"))
	} else {
		p.missing(m, "message")
	}

	// The type of a declared field, "" when not declared.
	typeOf := func(name string) (string, bool) {
		f, ok := c.Message.Field(name)
		return f.Type, ok
	}

	if e, ok := m.get("key"); ok {
		c.KeyPos = p.pos(deref(e.val))
		names, nodes, ok := p.names(e.val, join(path, "key"), "key")
		if ok && len(deref(e.val).Content) == 0 {
			p.errorf(deref(e.val), join(path, "key"), "list at least one field")
		}
		c.Key = names
		if declared {
			for j, name := range names {
				typ, ok := typeOf(name)
				switch {
				case !ok:
					p.errorf(nodes[j], fmt.Sprintf("%s.key[%d]", path, j), "field %q is not declared in message", name)
				case !isKeyable(typ):
					p.errorf(nodes[j], fmt.Sprintf("%s.key[%d]", path, j), "field %q has type %s, which cannot be part of a key", name, typ)
				}
			}
		}
	} else {
		p.missing(m, "key")
	}
	if e, ok := m.get("key_version"); ok {
		if v, ok := p.integer(e.val, join(path, "key_version")); ok {
			c.KeyVersion = v
			p.check(e.val, join(path, "key_version"), badKeyVersion(c.Name, v))
		}
	}
	fingerprintSet := false
	if e, ok := m.get("fingerprint"); ok {
		fingerprintSet = true
		c.FingerprintPos = p.pos(deref(e.val))
		names, nodes, _ := p.names(e.val, join(path, "fingerprint"), "fingerprint")
		c.Fingerprint = names
		if c.Fingerprint == nil {
			c.Fingerprint = []string{}
		}
		if declared {
			for j, name := range names {
				if _, ok := typeOf(name); !ok {
					p.errorf(nodes[j], fmt.Sprintf("%s.fingerprint[%d]", path, j), "field %q is not declared in message", name)
				}
			}
		}
	}
	if !fingerprintSet && c.Message.Type == "" {
		for _, f := range c.Message.Fields {
			c.Fingerprint = append(c.Fingerprint, f.Name)
		}
	}

	effectKnown := false
	if e, ok := m.get("effect"); ok {
		c.Effect, effectKnown = p.oneOf(e.val, join(path, "effect"), "effect", effects...)
	} else {
		p.missing(m, "effect")
	}
	if c.Effect == EffectExternal {
		c.Store, c.Lease, c.Delivery, c.OnError = DefaultStore, DefaultLease, DefaultDelivery, DefaultOnError
	}
	// externalOnly reports a setting of external effects on another kind.
	externalOnly := func(e entry, name string) bool {
		if effectKnown && c.Effect != EffectExternal {
			p.errorf(e.key, join(path, name), "%s applies only to effect: external", name)
			return false
		}
		return true
	}
	if e, ok := m.get("store"); ok && externalOnly(e, "store") {
		if v, ok := p.oneOf(e.val, join(path, "store"), "store", stores...); ok {
			c.Store = v
		}
	}
	if e, ok := m.get("lease"); ok && externalOnly(e, "lease") {
		if d, ok := p.durationAtLeast(e.val, join(path, "lease"), MinLease, "s"); ok {
			c.Lease = d
			info.lease = deref(e.val)
		} else {
			info.badTiming = true
		}
	}
	if e, ok := m.get("delivery"); ok && externalOnly(e, "delivery") {
		if v, ok := p.oneOf(e.val, join(path, "delivery"), "delivery", deliveries...); ok {
			c.Delivery = v
		}
	}
	if e, ok := m.get("on_error"); ok && externalOnly(e, "on_error") {
		if v, ok := p.oneOf(e.val, join(path, "on_error"), "on_error", onErrors...); ok {
			c.OnError = v
		}
	}
	if e, ok := m.get("retention"); ok {
		if d, ok := p.durationAtLeast(e.val, join(path, "retention"), MinRetention, "h"); ok {
			c.Retention = d
			info.retention = deref(e.val)
		} else {
			info.badTiming = true
		}
	}
	if e, ok := m.get("hash_tag"); ok {
		if effectKnown && c.Effect != EffectRedis {
			p.errorf(e.key, join(path, "hash_tag"), "hash_tag applies only to effect: redis")
		} else if v, ok := p.str(e.val, join(path, "hash_tag")); ok && p.check(e.val, join(path, "hash_tag"), badFieldName(v)) {
			c.HashTag = v
			c.HashTagPos = p.pos(deref(e.val))
			if declared {
				typ, ok := typeOf(v)
				switch {
				case !ok:
					p.errorf(deref(e.val), join(path, "hash_tag"), "field %q is not declared in message", v)
				case !isKeyable(typ):
					p.errorf(deref(e.val), join(path, "hash_tag"), "field %q has type %s, which cannot be a hash tag", v, typ)
				}
			}
		}
	}
	return c, info
}

// names reads a sequence of field names (key, fingerprint) and reports
// repeats; what names the list in messages.
func (p *parser) names(n *yaml.Node, path, what string) ([]string, []*yaml.Node, bool) {
	items, ok := p.sequence(n, path)
	if !ok {
		return nil, nil, false
	}
	var names []string
	var nodes []*yaml.Node
	for j, item := range items {
		itemPath := fmt.Sprintf("%s[%d]", path, j)
		v, ok := p.str(item, itemPath)
		if !ok || !p.check(item, itemPath, badFieldName(v)) {
			continue
		}
		if slices.Contains(names, v) {
			p.errorf(deref(item), itemPath, "field %q is repeated in the %s", v, what)
			continue
		}
		names = append(names, v)
		nodes = append(nodes, deref(item))
	}
	return names, nodes, true
}

// message reads message.fields or message.type. declared reports whether
// the message declares fields that key, fingerprint and hash_tag can be
// checked against.
func (p *parser) message(n *yaml.Node, path string) (msg Message, declared bool) {
	m, ok := p.mapping(n, path, messageFields)
	if !ok {
		return msg, false
	}
	fe, hasFields := m.get("fields")
	te, hasType := m.get("type")
	switch {
	case hasFields && hasType:
		p.errorf(te.key, join(path, "type"), "give either fields or type, not both")
	case !hasFields && !hasType:
		p.errorf(m.node, path, "missing required field \"fields\" or \"type\"")
	}
	if hasType {
		msg.Pos = p.pos(deref(te.val))
		if v, ok := p.str(te.val, join(path, "type")); ok {
			msg.Type = v
			if _, _, err := splitType(v); err != nil {
				p.errorf(deref(te.val), join(path, "type"), "%v", err)
			}
		}
	}
	if !hasFields {
		return msg, false
	}
	if hasType {
		msg.Type = ""
	}
	msg.Pos = p.pos(deref(fe.val))
	fields, ok := p.mapping(fe.val, join(path, "fields"), nil)
	if !ok {
		return msg, false
	}
	if len(fields.order) == 0 {
		p.errorf(fields.node, join(path, "fields"), "declare at least one field")
	}
	goNames := map[string]string{}
	for _, name := range fields.order {
		e := fields.entries[name]
		fpath := join(join(path, "fields"), name)
		f := Field{Name: name, GoName: GoName(name), Pos: p.pos(e.key)}
		if t, ok := p.oneOf(e.val, fpath, "field type", fieldTypes...); ok {
			f.Type = t
		}
		switch {
		case badFieldName(name) != "":
			p.errorf(e.key, fpath, "%s", badFieldName(name))
		case goNameProblem(name) != "":
			p.errorf(e.key, fpath, "%s", goNameProblem(name))
		case slices.Contains(reservedFieldNames, f.GoName):
			p.errorf(e.key, fpath, "the Go name %s is taken by a generated method; rename the field", f.GoName)
		case goNames[f.GoName] != "":
			p.errorf(e.key, fpath, "field %q and field %q both become the Go name %s", goNames[f.GoName], name, f.GoName)
		default:
			goNames[f.GoName] = name
		}
		msg.Fields = append(msg.Fields, f)
	}
	return msg, true
}

// checkNames reports consumer names that repeat, and consumers whose
// generated Go names collide: <Name>, <Name>Handler, <Name>Func and
// New<Name>Handler for each.
func (p *parser) checkNames(s *Spec, infos []consumerInfo) {
	type owner struct {
		consumer int
		role     string
	}
	first := map[string]int{}
	taken := map[string]owner{}
	for i, c := range s.Consumers {
		node := infos[i].name
		if node == nil {
			continue
		}
		path := fmt.Sprintf("consumers[%d].name", i)
		if j, dup := first[c.Name]; dup {
			p.errorf(node, path, "duplicate consumer name %q (first at consumers[%d], line %d)", c.Name, j, s.Consumers[j].Pos.Line)
			continue
		}
		first[c.Name] = i
		t := GoName(c.Name)
		idents := []struct{ name, role string }{
			{t, "message type"},
			{t + "Handler", "handler type"},
			{t + "Func", "apply func type"},
			{"New" + t + "Handler", "handler constructor"},
		}
		collided := false
		for _, id := range idents {
			if o, ok := taken[id.name]; ok && !collided {
				p.errorf(node, path, "Go name %s (its %s) collides with the %s of consumers[%d] %q", id.name, id.role, o.role, o.consumer, s.Consumers[o.consumer].Name)
				collided = true
			}
		}
		if collided {
			continue
		}
		for _, id := range idents {
			taken[id.name] = owner{i, id.role}
		}
	}
}
