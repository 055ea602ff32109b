// Package clean has no finding.
package clean

import "strings"

func Upper(s string) string { return strings.ToUpper(s) }
