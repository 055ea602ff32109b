package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// reportFlag is the analyzer flag (registered, so that go vet accepts it
// and keys its cache on it) by which the standalone driver asks the vet
// tool to report findings in VetxOnly units too.
const reportFlag = "vetx-report"

// vetUnit reports whether args are go vet's invocation of the tool on one
// unit: flags, then a single *.cfg file.
func vetUnit(args []string) (cfg string, ok bool) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return "", false
	}
	for _, a := range args[:len(args)-1] {
		if !strings.HasPrefix(a, "-") {
			return "", false
		}
	}
	return args[len(args)-1], true
}

// flagSet reports whether the boolean flag name is set to true in args
// (-name, --name, -name=true, …), the last occurrence winning.
func flagSet(args []string, name string) bool {
	set := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		n, v, hasV := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if n != name {
			continue
		}
		if !hasV {
			set = true
			continue
		}
		b, err := strconv.ParseBool(v)
		set = err == nil && b
	}
	return set
}

// reportingConfig returns the name of a vet config like the one in file
// but with VetxOnly false, written next to it (in go vet's work directory,
// which go vet removes), or file itself when VetxOnly is not set. Every
// other field is kept as go vet wrote it.
//
// VetxOnly changes two things in unitchecker.Run: analyzers without facts
// are dropped (idemlint has facts, so it runs either way), and results are
// not printed (a load or type error exits 1 silently). With VetxOnly false
// the unit's findings (or errors) are printed to the config's Stdout file,
// which go vet caches under the same key as the facts.
func reportingConfig(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return file, err
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(data, &cfg); err != nil {
		return file, err
	}
	if !bytes.Equal(bytes.TrimSpace(cfg["VetxOnly"]), []byte("true")) {
		return file, nil
	}
	cfg["VetxOnly"] = json.RawMessage("false")
	out, err := json.MarshalIndent(cfg, "", "\t")
	if err != nil {
		return file, err
	}
	name := filepath.Join(filepath.Dir(file), "idemlint-report.cfg")
	if err := os.WriteFile(name, append(out, '\n'), 0o666); err != nil {
		return file, err
	}
	return name, nil
}
