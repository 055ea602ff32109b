package spec

import (
	"fmt"
	"slices"
)

// Validate checks a Spec that did not necessarily come from Parse (a
// program may build one, or edit a parsed one) against the rules the
// generator relies on: every string that reaches generated code, comments,
// file names or SQL has the form Parse requires, every setting is one of
// its values, and key, fingerprint and hash_tag name fields of the message.
// It does not look at the file system (the module boundary, links) nor
// resolve Go types. Errors are an ErrorList positioned at the consumer (or
// the spec's file) and named by the setting's path.
func (s *Spec) Validate() error {
	v := validator{file: s.File}
	top := Position{File: s.File}
	v.check(top, "package", badPackage(s.Package))
	v.check(top, "output", badFolder(s.Output))
	v.check(top, "table", badTable(s.Table))
	v.oneOf(top, "sql_package", s.SQLPackage, sqlPackages)
	v.check(top, "migrations.dir", badFolder(s.Migrations.Dir))
	v.oneOf(top, "migrations.format", s.Migrations.Format, formats)
	if s.Migrations.Partition != "" {
		v.oneOf(top, "migrations.partition", s.Migrations.Partition, partitions)
		if s.Migrations.Partition == PartitionDaily && s.Dialect != "" && s.Dialect != DialectPostgres {
			v.check(top, "migrations.partition", "daily partitions need dialect postgres, not "+s.Dialect)
		}
	}
	if s.Migrations.Version < 1 || s.Migrations.Version > maxMigrationVersion {
		v.check(top, "migrations.version", fmt.Sprintf("must be between 1 and %d, got %d", maxMigrationVersion, s.Migrations.Version))
	}
	if s.Retention < MinRetention {
		v.check(top, "retention", belowMinimum(s.Retention.String(), s.Retention, MinRetention, "h"))
	}
	if len(s.Consumers) == 0 {
		v.check(top, "consumers", "list at least one consumer")
	}
	for i := range s.Consumers {
		v.consumer(s, i)
	}
	if len(v.errs) > 0 {
		return v.errs.sorted()
	}
	return nil
}

// validator collects the errors of Validate.
type validator struct {
	file string
	errs ErrorList
}

func (v *validator) check(pos Position, path, msg string) {
	if msg != "" {
		v.errs = append(v.errs, &Error{Pos: pos, Path: path, Msg: msg})
	}
}

func (v *validator) oneOf(pos Position, path, value string, values []string) {
	if !slices.Contains(values, value) {
		v.check(pos, path, fmt.Sprintf("unknown value %q (want %s)", value, list(values, "or")))
	}
}

func (v *validator) consumer(s *Spec, i int) {
	c := &s.Consumers[i]
	pos := c.Pos
	if pos.File == "" {
		pos.File = v.file
	}
	path := fmt.Sprintf("consumers[%d]", i)
	v.check(pos, path+".name", badConsumerName(c.Name))
	if c.KeyVersion != 0 { // 0 counts as 1
		v.check(pos, path+".key_version", badKeyVersion(c.Name, c.KeyVersion))
	}
	if c.Topic != "" {
		v.check(pos, path+".topic", badTopic(c.Topic))
	}
	v.oneOf(pos, path+".effect", c.Effect, effects)
	if storesInSQL(*c) != "" {
		v.oneOf(pos, "dialect", s.Dialect, dialects)
	}
	retention := c.Retention
	switch {
	case retention == 0:
		retention = s.Retention
	case retention < MinRetention:
		v.check(pos, path+".retention", belowMinimum(retention.String(), retention, MinRetention, "h"))
	}
	if c.Effect == EffectExternal {
		v.oneOf(pos, path+".store", c.Store, stores)
		v.oneOf(pos, path+".delivery", c.Delivery, deliveries)
		v.oneOf(pos, path+".on_error", c.OnError, onErrors)
		switch {
		case c.Lease < MinLease:
			v.check(pos, path+".lease", belowMinimum(c.Lease.String(), c.Lease, MinLease, "s"))
		case c.Lease >= retention:
			v.check(pos, path+".lease", fmt.Sprintf("lease %s must be shorter than the retention (%s)", fmtDuration(c.Lease), fmtDuration(retention)))
		}
	}

	m := c.Message
	if m.Type != "" {
		v.check(pos, path+".message.type", badGoType(m.Type))
	}
	if len(m.Fields) == 0 {
		v.check(pos, path+".message", "the message has no fields")
	}
	goNames := map[string]bool{}
	for j, f := range m.Fields {
		fpath := fmt.Sprintf("%s.message.fields[%d]", path, j)
		v.check(pos, fpath, badFieldName(f.Name))
		v.oneOf(pos, fpath+".type", f.Type, fieldTypes)
		switch {
		case m.Type != "":
			// A field of an existing Go type keeps its own Go name.
		case goNameProblem(f.Name) != "":
			v.check(pos, fpath, goNameProblem(f.Name))
		case f.GoName != GoName(f.Name) || goNames[f.GoName]:
			v.check(pos, fpath, fmt.Sprintf("field %q: its Go name must be %s, once in the message", f.Name, GoName(f.Name)))
		}
		goNames[f.GoName] = true
	}
	ref := func(where, name string, keyable bool) {
		if msg := badFieldName(name); msg != "" {
			v.check(pos, where, msg)
			return
		}
		f, ok := m.Field(name)
		switch {
		case !ok:
			v.check(pos, where, fmt.Sprintf("field %q is not in the message", name))
		case keyable && !isKeyable(f.Type):
			v.check(pos, where, fmt.Sprintf("field %q has type %s, which cannot be part of a key", name, f.Type))
		}
	}
	if len(c.Key) == 0 {
		v.check(pos, path+".key", "list at least one field")
	}
	for j, k := range c.Key {
		ref(fmt.Sprintf("%s.key[%d]", path, j), k, true)
		if slices.Index(c.Key, k) != j {
			v.check(pos, fmt.Sprintf("%s.key[%d]", path, j), fmt.Sprintf("field %q is repeated in the key", k))
		}
	}
	for j, k := range c.Fingerprint {
		ref(fmt.Sprintf("%s.fingerprint[%d]", path, j), k, false)
		if slices.Index(c.Fingerprint, k) != j {
			v.check(pos, fmt.Sprintf("%s.fingerprint[%d]", path, j), fmt.Sprintf("field %q is repeated in the fingerprint", k))
		}
	}
	if c.HashTag != "" {
		if c.Effect != EffectRedis {
			v.check(pos, path+".hash_tag", "hash_tag applies only to effect: redis")
		}
		ref(path+".hash_tag", c.HashTag, true)
	}
}
