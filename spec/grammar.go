package spec

import (
	"fmt"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/module"
)

// The grammar of every spec string that reaches generated code, comments,
// file names or SQL. Each check returns what is wrong with a value, or ""
// when it is fine; Parse reports the problem at the value's node, Validate
// at its consumer.

var (
	packageName  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	tableName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)
	consumerName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	fieldName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)
	topicName    = regexp.MustCompile(`^[A-Za-z0-9._:/*>#+-]+$`)
	folderPath   = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	driveLetter  = regexp.MustCompile(`^[A-Za-z]:`)
)

// Limits on the length of spec strings.
const (
	// maxConsumerName is the longest consumer name: it is stored in the
	// dedup table's consumer column (VARBINARY(191) on MySQL).
	maxConsumerName = 191
	maxFieldName    = 128
	maxTopic        = 512
	maxFolder       = 1024
	maxFolderPart   = 255
	// maxMigrationVersion keeps migration numbers (and the versions after
	// the first, on MySQL's one statement per file) far from overflowing;
	// it admits timestamps such as 20240101120000.
	maxMigrationVersion = 999_999_999_999_999
)

// ValidPackageName reports whether name is a Go package name a spec accepts:
// lowercase letters, digits and _, starting with a letter, not a keyword.
func ValidPackageName(name string) bool {
	return packageName.MatchString(name) && !token.IsKeyword(name)
}

func badPackage(v string) string {
	switch {
	case token.IsKeyword(v):
		return fmt.Sprintf("%q is a Go keyword", v)
	case !packageName.MatchString(v):
		return fmt.Sprintf("%q is not a valid package name (lowercase letters, digits and _, starting with a letter)", v)
	}
	return ""
}

func badTable(v string) string {
	switch {
	case !tableName.MatchString(v):
		return fmt.Sprintf("%q is not a SQL identifier (letters, digits and _, not starting with a digit, at most 63 characters)", v)
	case sqlReserved[strings.ToLower(v)]:
		return fmt.Sprintf("%q is a reserved word of SQL (PostgreSQL or MySQL), which the statements cannot name bare: choose another name, such as idem_%s", v, strings.ToLower(v))
	}
	return ""
}

func badConsumerName(v string) string {
	switch {
	case !consumerName.MatchString(v):
		return fmt.Sprintf("%q is not snake_case (lowercase letters and digits, words separated by one _, starting with a letter)", v)
	case len(v) > maxConsumerName:
		return fmt.Sprintf("name is longer than %d characters", maxConsumerName)
	}
	return ""
}

// badKeyVersion checks key_version: at least 1, and a namespace (name@vN)
// that fits the dedup table's consumer column.
func badKeyVersion(name string, v int) string {
	if v < 1 {
		return fmt.Sprintf("must be at least 1, got %d", v)
	}
	if ns := (&Consumer{Name: name, KeyVersion: v}).Namespace(); len(ns) > maxConsumerName {
		return fmt.Sprintf("the namespace %s is longer than %d characters", ns, maxConsumerName)
	}
	return ""
}

func badTopic(v string) string {
	switch {
	case !topicName.MatchString(v):
		return fmt.Sprintf("%q is not a topic name (letters, digits and . _ : / * > # + -; no spaces)", v)
	case len(v) > maxTopic:
		return fmt.Sprintf("topic is longer than %d characters", maxTopic)
	}
	return ""
}

// badFieldName checks a field's JSON name: a declared field's, one named in
// key, fingerprint or hash_tag, or a message.type field's.
func badFieldName(v string) string {
	if !fieldName.MatchString(v) || len(v) > maxFieldName {
		return fmt.Sprintf("%q is not a valid field name (letters, digits, _, - and ., starting with a letter or _, at most %d characters)", v, maxFieldName)
	}
	return ""
}

// badFolder checks the form of a folder setting (output, migrations.dir):
// a relative path of /-separated names of letters, digits, ., _ and -.
// Whether it stays in the module is checked apart.
func badFolder(dir string) string {
	switch {
	case dir == "":
		return "must not be empty (use \".\" for the spec's folder)"
	case filepath.IsAbs(dir) || strings.HasPrefix(dir, "/") || filepath.VolumeName(dir) != "" || driveLetter.MatchString(dir):
		return fmt.Sprintf("%q must be relative to the spec's folder", dir)
	case strings.Contains(dir, `\`):
		return fmt.Sprintf("%q: use / as the path separator", dir)
	case len(dir) > maxFolder:
		return fmt.Sprintf("the path is longer than %d characters", maxFolder)
	case !folderPath.MatchString(dir):
		return fmt.Sprintf("%q is not a folder path (/-separated names of letters, digits, ., _ and -; no spaces or control characters)", dir)
	}
	for part := range strings.SplitSeq(dir, "/") {
		switch {
		case len(part) > maxFolderPart:
			return fmt.Sprintf("a name in the path is longer than %d characters", maxFolderPart)
		case strings.EqualFold(part, ".git"):
			return fmt.Sprintf("%q: idemgen does not write into .git", dir)
		}
	}
	return ""
}

// badGoType checks the form of message.type: import/path.TypeName, an
// import path the go command accepts and an exported identifier.
func badGoType(qualified string) string {
	if _, _, err := splitType(qualified); err != nil {
		return err.Error()
	}
	return ""
}

// splitType splits "import/path.TypeName".
func splitType(qualified string) (pkgPath, name string, err error) {
	dot := strings.LastIndex(qualified, ".")
	if dot <= 0 || dot < strings.LastIndex(qualified, "/") {
		return "", "", fmt.Errorf("%q is not a qualified Go type (want import/path.TypeName)", qualified)
	}
	pkgPath, name = qualified[:dot], qualified[dot+1:]
	switch {
	case module.CheckImportPath(pkgPath) != nil:
		return "", "", fmt.Errorf("%q is not a qualified Go type (want import/path.TypeName): %q is not an import path", qualified, pkgPath)
	case !token.IsIdentifier(name):
		return "", "", fmt.Errorf("%q is not a qualified Go type (want import/path.TypeName)", qualified)
	case !token.IsExported(name):
		return "", "", fmt.Errorf("type %s is not exported", name)
	}
	return pkgPath, name, nil
}
